import { describe, expect, it } from "vitest";

import { allowedRequests } from "./plan";

describe("plan allowance (SPEC 9)", () => {
  it("allows the free plan's requests at 0 units, else units times requests per unit", () => {
    const terms = { unitPlanRequests: 1000, freePlanRequests: 250 };
    expect(allowedRequests({ units: 0, ...terms })).toBe(250);
    expect(allowedRequests({ units: 4, ...terms })).toBe(4000);
  });
});
