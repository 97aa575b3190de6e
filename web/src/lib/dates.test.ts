import { describe, expect, it } from "vitest";

import { dayLabel } from "./dates";

describe("dayLabel", () => {
  it("names the day in UTC, whatever the browser's zone", () => {
    expect(dayLabel("2026-11-23T23:30:00Z")).toBe("Nov 23, 2026");
  });
});
