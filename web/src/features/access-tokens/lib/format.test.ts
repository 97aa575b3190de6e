import { describe, expect, it } from "vitest";

import { creator, lastDay, whenText } from "./format";

describe("creator", () => {
  it("splits the name and the email kept with the token", () => {
    expect(creator("Ada Lovelace <ada@acme-robotics.dev>")).toEqual({
      name: "Ada Lovelace",
      email: "ada@acme-robotics.dev",
    });
  });

  it("shows the email of a creator without a name, and text without an email as it is", () => {
    expect(creator("<ops@acme-robotics.dev>")).toEqual({ name: "ops@acme-robotics.dev", email: "ops@acme-robotics.dev" });
    expect(creator("Ada Lovelace")).toEqual({ name: "Ada Lovelace", email: "" });
  });
});

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

describe("lastDay", () => {
  it("reads the last day a token works from its expiry at that day's end (UTC)", () => {
    expect(lastDay("2026-12-05T00:00:00Z")).toBe("2026-12-04");
    expect(lastDay("2026-12-05T00:00:00+00:00")).toBe("2026-12-04");
  });
});
