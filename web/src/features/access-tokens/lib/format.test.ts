import { describe, expect, it } from "vitest";

import { creator, lastDay } from "./format";

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

describe("lastDay", () => {
  it("reads the last day a token works from its expiry at that day's end (UTC)", () => {
    expect(lastDay("2026-12-05T00:00:00Z")).toBe("2026-12-04");
    expect(lastDay("2026-12-05T00:00:00+00:00")).toBe("2026-12-04");
  });
});
