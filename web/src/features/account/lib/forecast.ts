/**
 * End-of-cycle forecast of the current billing cycle's requests (README "Usage alerts and export"), a pure
 * function of the usage entries (SPEC 3 "Usage entry": startMs, requests; 12 cycles at most,
 * oldest first, the last one current) and the time the usage was read.
 *
 * Method: a run-rate projection, steadied by the previous cycle's pace while the current cycle
 * has less than a week of data. From `now` to the cycle's end the account is assumed to go on
 * at the pace
 *
 *     pace = w * used / elapsed + (1 - w) * previousPace,   w = min(1, elapsed / 7 days)
 *
 * (requests per ms; `previousPace` is the previous cycle's requests over its length), so the
 * forecast is `used + pace * remaining`. Why: a plain run-rate a few hours into a cycle
 * multiplies one CI burst by a hundred, and usage follows the working week, so a week of data is
 * what it takes before the current pace alone can be trusted; until then last cycle's pace fills
 * in, and `w * used / elapsed` equals `used / 7 days` so the early weight never explodes. An
 * account without a previous cycle with usage (its first month, or nothing metered then) gets
 * the plain run-rate once a day of the cycle has passed. No forecast (null) when the cycle has
 * no requests yet, when that first day has not passed, or when `now` is outside the cycle.
 */

import { formatDay, nextCycleStart } from "./usage-graph";

export const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;

type CycleUsage = { startMs: number; requests: number };

export interface Forecast {
  /** Projected requests at the end of the cycle (not rounded; never below `used`). */
  requests: number;
  /** End of the current cycle (the next cycle's start), epoch ms. */
  endMs: number;
  /** Requests of the current cycle so far. */
  used: number;
  /** The pace assumed from `nowMs` to `endMs`, requests per ms. */
  pace: number;
  nowMs: number;
}

/** The forecast of the last (current) cycle of `usage` as of `nowMs` (see the module comment). */
export function forecastUsage(usage: readonly CycleUsage[], nowMs: number): Forecast | null {
  const current = usage.at(-1);
  if (!current || current.requests <= 0) return null;
  const used = current.requests;
  const endMs = nextCycleStart(usage.map((u) => u.startMs));
  const elapsed = nowMs - current.startMs;
  const remaining = endMs - nowMs;
  if (elapsed <= 0 || remaining < 0) return null;
  const previous = usage.at(-2);
  let pace: number;
  if (previous && previous.requests > 0) {
    const weight = Math.min(1, elapsed / WEEK_MS);
    const previousPace = previous.requests / (current.startMs - previous.startMs);
    pace = (weight * used) / elapsed + (1 - weight) * previousPace;
  } else if (elapsed >= DAY_MS) {
    pace = used / elapsed;
  } else {
    return null;
  }
  return { requests: used + pace * remaining, endMs, used, pace, nowMs };
}

/** When the forecast line reaches `requests` (epoch ms); `nowMs` if usage is already there. */
export function reachedAt(forecast: Forecast, requests: number): number {
  return forecast.nowMs + Math.max(0, requests - forecast.used) / forecast.pace;
}

/**
 * The 'about N' of the overview: whole requests below 100, else two significant digits
 * (1,234 -> 1,200; 56,789 -> 57,000), never below the requests already used (rounded up).
 */
export function aboutRequests(forecast: Forecast): number {
  const { requests, used } = forecast;
  const step = requests < 100 ? 1 : 10 ** (Math.floor(Math.log10(requests)) - 1);
  return Math.max(Math.round(requests / step), Math.ceil(used / step)) * step;
}

/** 'about 1,200 requests by Dec 23, 2026' (the cycle's end, UTC): the overview text and the graph's label. */
export function forecastPhrase(forecast: Forecast): string {
  const about = aboutRequests(forecast).toLocaleString("en-US");
  return `about ${about} requests by ${formatDay(new Date(forecast.endMs))}`;
}
