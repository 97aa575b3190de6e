/**
 * A token's expiry (README "Automation"): `expiresOn` is the last day it works, UTC; the API
 * takes tomorrow to a year from today (api/identity/access_tokens/service.py: 366 days, so a
 * year holding 29 February still reaches the same day next year), and the token ends at that
 * day's end. The console offers 7, 30 and 90 days from today, or a date.
 */
const DAY_MS = 86_400_000;

/** The longest a token may live, in days from today (the API's MAX_LIFETIME). */
export const MAX_DAYS = 366;

export const PRESET_DAYS = [7, 30, 90] as const;
export type ExpiryChoice = (typeof PRESET_DAYS)[number] | "custom";

/** The API's own words (ExpiryOutOfRange). */
export const OUT_OF_RANGE = "The expiry date must be between tomorrow and one year from today.";

/** The UTC day `days` after the day of `nowMs`, as "YYYY-MM-DD". */
export function utcDayAfter(nowMs: number, days: number): string {
  return new Date(nowMs + days * DAY_MS).toISOString().slice(0, 10);
}

/** The days a custom date may be (the date field's min and max). */
export function expiryRange(nowMs: number): { min: string; max: string } {
  return { min: utcDayAfter(nowMs, 1), max: utcDayAfter(nowMs, MAX_DAYS) };
}

/** The `expiresOn` of `choice` (a custom one: `date` as typed), or null when there is none yet. */
export function expiresOn(choice: ExpiryChoice, date: string, nowMs: number): string | null {
  if (choice !== "custom") return utcDayAfter(nowMs, choice);
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null;
}

/** Why `day` ("YYYY-MM-DD") cannot be a token's last day, or null when it can. */
export function expiryError(day: string | null, nowMs: number): string | null {
  if (day === null) return "Choose the last day the token works.";
  const { min, max } = expiryRange(nowMs);
  return day < min || day > max ? OUT_OF_RANGE : null;
}
