import { describe, expect, it } from "vitest";

import { keyRows, labelRows, limitFraction, limitText, parseLimit, shareText } from "./spend";

const share = (requests: number, total = 100) => ({ requests, share: requests / total });

const breakdown = {
  cycleStartMs: 0,
  requests: 100,
  byKey: [
    { keyId: "k2", masked: "ak_…2222", expired: false, ...share(60) },
    { keyId: "k1", masked: "ak_…1111", expired: true, ...share(30) },
  ],
  unknownKey: share(10),
  labels: ["ci", "project"],
  label: "project",
  byLabel: [{ value: "checkout", ...share(50) }],
  otherValues: share(0),
  unlabelled: share(50),
};

describe("spend wording", () => {
  it("words shares of the cycle", () => {
    expect(shareText(0)).toBe("0 %");
    expect(shareText(0.004)).toBe("<1 %");
    expect(shareText(0.426)).toBe("43 %");
    expect(shareText(1)).toBe("100 %");
  });

  it("words a key's requests against its limit", () => {
    expect(limitText(1234, 5000)).toBe("1,234 of 5,000 requests this cycle");
    expect(limitText(1, null)).toBe("1 request this cycle · no monthly limit");
    expect(limitText(5000, 5000)).toBe("5,000 of 5,000 requests this cycle · limit reached");
    expect(limitFraction(10, 0)).toBe(1);
    expect(limitFraction(250, 1000)).toBe(0.25);
    expect(limitFraction(2000, 1000)).toBe(1);
  });

  it("reads a limit as typed", () => {
    expect(parseLimit("50,000")).toEqual({ limit: 50000 });
    expect(parseLimit(" 0 ")).toEqual({ limit: 0 });
    expect(parseLimit("  ")).toEqual({ limit: null });
    expect(parseLimit("1.5")).toEqual({ error: "Enter a whole number of requests" });
    expect(parseLimit("-3")).toEqual({ error: "Enter a whole number of requests" });
    expect(parseLimit("1000000000001")).toEqual({ error: "At most 1,000,000,000,000 requests" });
  });

  it("lists the keys, then what no key sent", () => {
    expect(keyRows(breakdown, "k2").map((r) => [r.name, r.requests, r.note])).toEqual([
      ["ak_…2222", 60, "current"],
      ["ak_…1111", 30, "expired"],
      ["Key not recorded", 10, undefined],
    ]);
  });

  it("lists the label's values, then only the rests there are", () => {
    expect(labelRows(breakdown).map((r) => [r.name, r.requests, r.rest ?? false])).toEqual([
      ["checkout", 50, false],
      ["Without project", 50, true],
    ]);
  });
});
