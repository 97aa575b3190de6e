import { describe, expect, it } from "vitest";

import { OUT_OF_RANGE, expiresOn, expiryError, expiryRange, utcDayAfter } from "./expiry";

// 23:30 UTC on 27 November 2026: already the 28th east of UTC, still the 27th in UTC.
const NOW = Date.parse("2026-11-27T23:30:00Z");

describe("token expiry (README 'Automation': the last day it works, UTC)", () => {
  it("counts the presets from today in UTC", () => {
    expect(utcDayAfter(NOW, 7)).toBe("2026-12-04");
    expect(expiresOn(30, "", NOW)).toBe("2026-12-27");
    expect(expiresOn(90, "", NOW)).toBe("2027-02-25");
  });

  it("takes a custom date as typed, none until it is a whole date", () => {
    expect(expiresOn("custom", "2027-01-15", NOW)).toBe("2027-01-15");
    expect(expiresOn("custom", "", NOW)).toBeNull();
  });

  it("allows tomorrow to 366 days from today, as the API does", () => {
    expect(expiryRange(NOW)).toEqual({ min: "2026-11-28", max: "2027-11-28" });
    expect(expiryError("2026-11-28", NOW)).toBeNull();
    expect(expiryError("2027-11-28", NOW)).toBeNull();
    expect(expiryError("2026-11-27", NOW)).toBe(OUT_OF_RANGE);
    expect(expiryError("2027-11-29", NOW)).toBe(OUT_OF_RANGE);
    expect(expiryError(null, NOW)).toBe("Choose the last day the token works.");
  });
});
