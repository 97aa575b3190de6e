import { describe, expect, it } from "vitest";

import {
  canUpdatePlan,
  formatExpiry,
  formatRequests,
  monthlyPriceUsd,
} from "./plan";

describe("plan arithmetic (SPEC 9)", () => {
  it("charges 20 USD per unit", () => {
    expect(monthlyPriceUsd(0)).toBe(0);
    expect(monthlyPriceUsd(3)).toBe(60);
  });

  it("writes request counts with thousands separators", () => {
    expect(formatRequests(4000)).toBe("4,000 requests");
  });

  it("shows the card year as two digits", () => {
    expect(formatExpiry(4, 2031)).toBe("04/31");
    expect(formatExpiry(12, 2009)).toBe("12/09");
  });

  it("allows an update only for a changed value with a card on file", () => {
    expect(canUpdatePlan(3, 0, true)).toBe(true);
    expect(canUpdatePlan(0, 0, true)).toBe(false);
    expect(canUpdatePlan(3, 0, false)).toBe(false);
    expect(canUpdatePlan(0, 3, false)).toBe(false);
  });
});
