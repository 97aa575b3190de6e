/**
 * Geometry of the Usage Overview graph (SPEC 9), a pure function of the usage entries and the
 * plan: a 500 x 150 px plot, bars 16 px wide (one per billing cycle, oldest first, stacked web /
 * nativeMobile / api by credits), a bar height scale of 150 px with a minimum bar fraction of
 * 0.05 for any cycle with requests, four y-axis labels at thirds of the maximum, and a limit
 * line at the plan's requests. Coordinates are SVG px with y = 0 at the top of the plot.
 *
 * With a forecast (./forecast.ts, README "Usage alerts and export"), the current cycle's bar gets an extension from its
 * top up to the projected end-of-cycle requests, in the same scale.
 *
 * The maximum is the largest of 50, peak requests x 1.1 and plan requests x 1.5, rounded up to
 * a multiple of 3 up to 300, of 30 up to 3,000, and of 300 above (so thirds are whole numbers).
 * The peak counts the forecast too, so the extension fits in the plot.
 */

import { type PlanTerms, allowedRequests } from "@/lib/plan";

export const CHART_WIDTH = 500;
export const CHART_HEIGHT = 150;
export const BAR_WIDTH = 16;
export const MIN_BAR_FRACTION = 0.05;
export const MIN_MAXIMUM = 50;
export const SERIES = ["web", "nativeMobile", "api"] as const;
export type Series = (typeof SERIES)[number];

interface PlatformUsage {
  runs: number;
  credits: number;
}
export type UsageInput = { startMs: number; requests: number } & Record<Series, PlatformUsage>;

export interface Segment extends PlatformUsage {
  series: Series;
  y: number;
  height: number;
}

export interface Bar {
  x: number;
  y: number;
  height: number;
  startMs: number;
  requests: number;
  /** Bottom to top: web, nativeMobile, api (zero-credit series omitted). */
  segments: Segment[];
  month: string;
  date: string;
}

/** The forecast's extension of the current (last) bar: from `y` down to the bar's top. */
export interface ForecastBar {
  x: number;
  y: number;
  /** 0 when the projection does not reach above the bar (a bar at its minimum height). */
  height: number;
  requests: number;
}

export interface Graph {
  maximum: number;
  /** 0, a third, two thirds and the maximum, bottom to top. */
  yLabels: { value: number; y: number }[];
  bars: Bar[];
  /** y of the plan's limit line; null when the plan allows no requests. */
  limitY: number | null;
  planRequests: number;
  forecast: ForecastBar | null;
}

/** Dates are shown in UTC, the time zone billing cycles are counted in. */
const utc = (ms: number | Date, options: Intl.DateTimeFormatOptions) =>
  new Date(ms).toLocaleDateString("en-US", { timeZone: "UTC", ...options });

/** The y-axis maximum (see the module comment); integer arithmetic keeps x1.1 exact. */
export function graphMaximum(peakRequests: number, planRequestCount: number): number {
  const raw = Math.max(MIN_MAXIMUM, (peakRequests * 11) / 10, (planRequestCount * 3) / 2);
  const step = raw <= 300 ? 3 : raw <= 3000 ? 30 : 300;
  return Math.ceil(raw / step) * step;
}

/**
 * The graph of `usage` (the account's cycles, oldest first; requests and credits per cycle)
 * under `plan`, with `forecastRequests` (the current cycle's projected requests, or null) drawn
 * as an extension of the last bar.
 */
export function usageGraph(
  usage: readonly UsageInput[],
  plan: PlanTerms,
  forecastRequests: number | null = null,
): Graph {
  const allowed = allowedRequests(plan);
  const peak = Math.max(0, forecastRequests ?? 0, ...usage.map((u) => u.requests));
  const maximum = graphMaximum(peak, allowed);
  const scale = (value: number) => (value / maximum) * CHART_HEIGHT;
  const slot = CHART_WIDTH / Math.max(usage.length, 1);
  const bars = usage.map((entry, i): Bar => {
    const height =
      entry.requests > 0 ? Math.max(entry.requests / maximum, MIN_BAR_FRACTION) * CHART_HEIGHT : 0;
    let top = CHART_HEIGHT;
    const segments: Segment[] = [];
    for (const series of SERIES) {
      const { runs, credits } = entry[series];
      if (credits <= 0) continue;
      const segmentHeight = (height * credits) / entry.requests;
      top -= segmentHeight;
      segments.push({ series, runs, credits, y: top, height: segmentHeight });
    }
    return {
      x: slot * i + (slot - BAR_WIDTH) / 2,
      y: CHART_HEIGHT - height,
      height,
      startMs: entry.startMs,
      requests: entry.requests,
      segments,
      month: utc(entry.startMs, { month: "short" }),
      date: utc(entry.startMs, { day: "numeric" }),
    };
  });
  const last = bars.at(-1);
  const forecastTop = CHART_HEIGHT - scale(forecastRequests ?? 0);
  return {
    maximum,
    yLabels: [0, 1, 2, 3].map((k) => ({
      value: (maximum * k) / 3,
      y: CHART_HEIGHT - (CHART_HEIGHT * k) / 3,
    })),
    bars,
    limitY: allowed > 0 ? CHART_HEIGHT - scale(allowed) : null,
    planRequests: allowed,
    forecast:
      last && forecastRequests !== null
        ? {
            x: last.x,
            y: Math.min(forecastTop, last.y),
            height: Math.max(0, last.y - forecastTop),
            requests: forecastRequests,
          }
        : null,
  };
}

/**
 * The next billing cycle's start (epoch ms), mirroring `api/usage/cycles.py`: cycle n starts at
 * anchor + n calendar months in UTC, a day the month lacks clamped to its last day, always from
 * the anchor (Jan 31 -> Feb 28/29 -> Mar 31). The anchor's day of the month is the largest day
 * among `starts` (cycle starts, oldest first): fewer than 12 cycles begin at the anchor itself,
 * and 12 consecutive months include a 31-day one where no clamping happens. Time of day is kept.
 */
export function nextCycleStart(starts: readonly number[]): number {
  const last = new Date(starts.at(-1) ?? 0);
  const day = Math.max(...starts.map((ms) => new Date(ms).getUTCDate()));
  const year = last.getUTCFullYear();
  const month = last.getUTCMonth() + 1;
  const monthDays = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const next = new Date(last);
  next.setUTCFullYear(year, month, Math.min(day, monthDays));
  return next.getTime();
}

/**
 * When the allowance resets (SPEC 9): one calendar month after the latest cycle start `startMs`
 * (UTC), the day clamped to the month's last, as `reset_date` in api/usage/cycles.py.
 */
export function resetDate(startMs: number): Date {
  return new Date(nextCycleStart([startMs]));
}

/** 'Dec 21, 2026' (UTC). */
export function formatDay(date: Date): string {
  return utc(date, { month: "short", day: "numeric", year: "numeric" });
}

/** 'X of Y requests' (SPEC 9), numbers with thousands separators. */
export function usageSummary(used: number, allowed: number): string {
  return `${used.toLocaleString("en-US")} of ${allowed.toLocaleString("en-US")} requests`;
}
