import { describe, expect, it } from "vitest";

import { changeLine, utcTime } from "./format";

describe("activity table texts", () => {
  it("writes a change as field: before → after", () => {
    expect(changeLine("units", { from: 2, to: 5 })).toBe("units: 2 → 5");
    expect(changeLine("name", { from: "Acme", to: "Acme Robotics" })).toBe("name: Acme → Acme Robotics");
    expect(changeLine("first_name", { from: "Ada", to: "Ida" })).toBe("first name: Ada → Ida");
    expect(changeLine("method", { from: null, to: "password" })).toBe("method: password");
    expect(changeLine("card", { from: "Visa ending in 4242", to: null })).toBe("card: Visa ending in 4242 → —");
    expect(changeLine("require_google_sso", { from: false, to: true })).toBe("require google sso: false → true");
    expect(changeLine("thresholds", { from: [50, 80], to: [] })).toBe("thresholds: [50,80] → []");
    expect(changeLine("label", { from: "", to: "x" })).toBe('label: "" → x');
  });

  it("gives the UTC time to the second", () => {
    expect(utcTime("2026-11-24T20:04:12.123456Z")).toBe("2026-11-24 20:04:12 UTC");
    expect(utcTime("2026-11-24T21:04:12+01:00")).toBe("2026-11-24 20:04:12 UTC");
  });
});
