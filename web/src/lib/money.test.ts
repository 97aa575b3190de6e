import { describe, expect, it } from "vitest";

import { formatAmount } from "./money";

describe("amounts of money", () => {
  it("writes amounts from cents in their currency", () => {
    expect(formatAmount(6000, "usd")).toBe("$60.00");
    expect(formatAmount(1999, "eur")).toBe("€19.99");
  });
});
