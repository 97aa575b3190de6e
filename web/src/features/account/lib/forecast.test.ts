import { describe, expect, it } from "vitest";

import {
  DAY_MS,
  type Forecast,
  WEEK_MS,
  aboutRequests,
  forecastPhrase,
  forecastUsage,
  reachedAt,
} from "./forecast";

const HOUR = 3_600_000;
const utc = (y: number, m: number, d: number, h = 0) => Date.UTC(y, m - 1, d, h);
const cycle = (startMs: number, requests: number) => ({ startMs, requests });

describe("forecastUsage", () => {
  const NOV_1 = utc(2026, 11, 1);
  const DEC_1 = utc(2026, 12, 1);
  const OCT_1 = utc(2026, 10, 1);
  const NOV_LENGTH = DEC_1 - NOV_1; // 30 days

  it("is the plain run-rate after a week: used / elapsed fraction of the cycle", () => {
    const now = NOV_1 + 10 * DAY_MS; // a third of November
    const forecast = forecastUsage([cycle(OCT_1, 5000), cycle(NOV_1, 400)], now)!;
    expect(forecast.requests).toBeCloseTo(1200);
    expect(forecast.endMs).toBe(DEC_1);
    expect(forecast.used).toBe(400);
    expect(forecast.pace).toBeCloseTo(400 / (10 * DAY_MS));
  });

  it("leans on the previous cycle's pace in the first week, and less as the week passes", () => {
    // October: 3,100 requests over 31 days = 100 a day. November so far: 150 in the first day.
    const day1 = forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 150)], NOV_1 + DAY_MS)!;
    // pace = 1/7 x 150 a day + 6/7 x 100 a day = 750 / 7 a day, for 29 more days.
    expect(day1.requests).toBeCloseTo(150 + (750 / 7) * 29);
    expect(day1.requests).toBeGreaterThan(150 + 100 * 29); // above October's pace alone
    expect(day1.requests).toBeLessThan(150 * 30); // below the first day's run-rate alone
    // Ten minutes in, one burst of 50 does not project to 200,000.
    const early = forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 50)], NOV_1 + 10 * 60_000)!;
    expect(early.requests).toBeGreaterThan(3000);
    expect(early.requests).toBeLessThan(3300);
    // At exactly one week the previous cycle no longer counts.
    const week = forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 700)], NOV_1 + WEEK_MS)!;
    expect(week.requests).toBeCloseTo((700 * 30) / 7);
  });

  it("waits a day for a first cycle, or after a cycle without usage, then uses the run-rate", () => {
    expect(forecastUsage([cycle(NOV_1, 40)], NOV_1 + 23 * HOUR)).toBeNull();
    expect(forecastUsage([cycle(OCT_1, 0), cycle(NOV_1, 40)], NOV_1 + 23 * HOUR)).toBeNull();
    const day2 = forecastUsage([cycle(NOV_1, 40)], NOV_1 + 2 * DAY_MS)!;
    expect(day2.requests).toBeCloseTo(600);
  });

  it("has no basis without requests in the current cycle, or outside the cycle", () => {
    expect(forecastUsage([], NOV_1)).toBeNull();
    expect(forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 0)], NOV_1 + 10 * DAY_MS)).toBeNull();
    expect(forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 9)], NOV_1 - HOUR)).toBeNull();
    expect(forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 9)], DEC_1 + HOUR)).toBeNull();
  });

  it("ends at what was used when the cycle is over, and never projects less", () => {
    const atEnd = forecastUsage([cycle(OCT_1, 3100), cycle(NOV_1, 2500)], DEC_1)!;
    expect(atEnd.requests).toBe(2500);
    const late = forecastUsage([cycle(NOV_1, 2500)], DEC_1 - HOUR)!;
    expect(late.requests).toBeGreaterThan(2500);
    expect(late.requests).toBeCloseTo(2500 * (NOV_LENGTH / (NOV_LENGTH - HOUR)));
  });

  it("projects to a February cycle's real end, clamped from a day-31 anchor", () => {
    const JAN_31 = utc(2027, 1, 31);
    const FEB_28 = utc(2027, 2, 28);
    const forecast = forecastUsage([cycle(JAN_31, 0), cycle(FEB_28, 100)], FEB_28 + 10 * DAY_MS)!;
    expect(forecast.endMs).toBe(utc(2027, 3, 31)); // not Mar 28: counted from the anchor
    expect(forecast.requests).toBeCloseTo(100 * (31 / 10));
  });
});

describe("reachedAt and aboutRequests", () => {
  const forecast = (requests: number, used: number): Forecast => ({
    requests,
    used,
    endMs: 30 * DAY_MS,
    pace: 100 / DAY_MS,
    nowMs: 10 * DAY_MS,
  });

  it("finds when the projected line reaches an allowance", () => {
    expect(reachedAt(forecast(3000, 1000), 1500)).toBe(15 * DAY_MS);
    expect(reachedAt(forecast(3000, 1000), 800)).toBe(10 * DAY_MS); // already passed
  });

  it("rounds to whole requests below 100 and to two significant digits above", () => {
    expect(aboutRequests(forecast(47.4, 20))).toBe(47);
    expect(aboutRequests(forecast(99.6, 20))).toBe(100);
    expect(aboutRequests(forecast(123.4, 20))).toBe(120);
    expect(aboutRequests(forecast(1234, 20))).toBe(1200);
    expect(aboutRequests(forecast(56_789, 20))).toBe(57_000);
  });

  it("never rounds below the requests already used", () => {
    expect(aboutRequests(forecast(1249.5, 1249))).toBe(1300);
    expect(aboutRequests(forecast(1201, 1201))).toBe(1300);
    expect(aboutRequests(forecast(1201, 1150))).toBe(1200);
  });
});

describe("forecastPhrase", () => {
  it("reads 'about N requests by <cycle end>' with thousands separators, in UTC", () => {
    const forecast = forecastUsage(
      [cycle(Date.UTC(2026, 10, 23), 0), cycle(Date.UTC(2026, 11, 23, 23), 4321)],
      Date.UTC(2026, 11, 23, 23) + 10 * DAY_MS,
    )!;
    expect(forecastPhrase(forecast)).toBe("about 13,000 requests by Jan 23, 2027");
  });
});
