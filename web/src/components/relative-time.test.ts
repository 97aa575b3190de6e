import { describe, expect, it } from "vitest";

import { whenText } from "./relative-time";

describe("whenText", () => {
  const now = Date.parse("2026-11-27T12:00:00Z");
  it.each([
    ["2026-11-27T11:59:30Z", "just now"],
    ["2026-11-27T11:59:00Z", "1 minute ago"],
    ["2026-11-27T11:15:00Z", "45 minutes ago"],
    ["2026-11-27T09:00:00Z", "3 hours ago"],
    ["2026-11-25T12:00:00Z", "2 days ago"],
  ])("words %s as %s", (iso, text) => {
    expect(whenText(iso, now)).toBe(text);
  });

  it("gives the day of an older time", () => {
    expect(whenText("2026-11-02T12:00:00Z", now)).toBe("Nov 2, 2026");
  });
});
