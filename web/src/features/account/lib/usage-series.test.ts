import { describe, expect, it } from "vitest";

import type { components } from "@/api/schema";

import { keyRows, labelRows } from "./spend";
import { usageGraph } from "./usage-graph";
import { usageJson } from "../api/account";

import { breakdownOf, cycleEntries, cyclesOf, groupedLabel } from "./usage-series";

type UsageResponse = components["schemas"]["UsageResponse"];
type UsageGroup = components["schemas"]["UsageGroup"];
type Kind = UsageGroup["kind"];

const figures = (requests: number, records = requests ? 1 : 0, runs = records) => ({
  requests,
  records,
  runs,
});

/** A group whose requests all came from the web. */
const group = (kind: Kind, name: string | null, requests: number): UsageGroup => ({
  kind,
  group: name,
  ...figures(requests),
  web: figures(requests),
  nativeMobile: figures(0),
  api: figures(0),
});

const CYCLE = { start: "2026-11-21T10:15:00Z", end: "2026-12-21T10:15:00Z" };

function answer(groups: UsageGroup[], extra: Partial<UsageResponse> = {}): UsageResponse {
  const requests = groups.reduce((total, g) => total + g.requests, 0);
  return {
    granularity: "cycle",
    from: CYCLE.start,
    to: CYCLE.end,
    groupBy: null,
    labels: [],
    apiKeys: [],
    buckets: [
      {
        ...CYCLE,
        ...figures(requests),
        web: figures(requests),
        nativeMobile: figures(0),
        api: figures(0),
        groups,
      },
    ],
    nextCursor: null,
    ...extra,
  };
}

const byKey = answer(
  [group("apiKey", "k2", 60), group("apiKey", "k1", 30), group("keyNotRecorded", null, 10)],
  {
    groupBy: "apiKey",
    labels: ["ci", "project"],
    apiKeys: [
      { id: "k2", masked: "ak_…2222", expired: false },
      { id: "k1", masked: "ak_…1111", expired: true },
    ],
  },
);

describe("the Usage Overview from GET /web/usage?granularity=cycle", () => {
  const cycles: UsageResponse = {
    ...answer([]),
    from: "2026-10-21T10:15:00Z",
    buckets: [
      {
        start: "2026-10-21T10:15:00Z",
        end: CYCLE.start,
        requests: 12,
        records: 5,
        runs: 4,
        web: { requests: 7, records: 3, runs: 2 },
        nativeMobile: { requests: 5, records: 2, runs: 2 },
        api: figures(0),
        groups: [],
      },
      { ...answer([]).buckets[0]!, ...figures(0) },
    ],
  };

  it("has one entry per cycle, oldest first, with each platform's runs and credits", () => {
    expect(cycleEntries(cycles)).toEqual([
      {
        startMs: Date.UTC(2026, 9, 21, 10, 15),
        requests: 12,
        web: { runs: 2, credits: 7 },
        nativeMobile: { runs: 2, credits: 5 },
        api: { runs: 0, credits: 0 },
      },
      {
        startMs: Date.UTC(2026, 10, 21, 10, 15),
        requests: 0,
        web: { runs: 0, credits: 0 },
        nativeMobile: { runs: 0, credits: 0 },
        api: { runs: 0, credits: 0 },
      },
    ]);
    expect(cyclesOf(cycles)).toEqual([
      { startMs: Date.UTC(2026, 9, 21, 10, 15), start: "2026-10-21T10:15:00Z", end: CYCLE.start },
      { startMs: Date.UTC(2026, 10, 21, 10, 15), ...CYCLE },
    ]);
  });

  it("draws the graph it drew from GET /web/account's usage entries", () => {
    const plan = { units: 0, unitPlanRequests: 1000, freePlanRequests: 100 };
    const bars = usageGraph(cycleEntries(cycles), plan).bars;
    expect(bars.map((b) => [b.requests, b.segments.map((s) => [s.series, s.credits])])).toEqual([
      [12, [["web", 7], ["nativeMobile", 5]]],
      [0, []],
    ]);
  });

  it("never takes the CSV the contract also lists for JSON", () => {
    expect(usageJson(cycles)).toBe(cycles);
    expect(() => usageJson("start,end\r\n")).toThrow("GET /web/usage answered CSV, not JSON");
  });
});

describe("where a cycle's requests went, from the cycle by key and by label", () => {
  it("lists the keys that sent requests, then what no key sent, as the panel did", () => {
    const breakdown = breakdownOf(byKey, null);
    expect(breakdown.requests).toBe(100);
    expect(breakdown.labels).toEqual(["ci", "project"]);
    expect(keyRows(breakdown, "k2").map((r) => [r.name, r.requests, r.share, r.note])).toEqual([
      ["ak_…2222", 60, 0.6, "current"],
      ["ak_…1111", 30, 0.3, "expired"],
      ["Key not recorded", 10, 0.1, undefined],
    ]);
  });

  it("leaves out keys whose records brought no requests", () => {
    const idle = answer([group("apiKey", "k1", 0)], {
      apiKeys: [{ id: "k1", masked: "ak_…1111", expired: false }],
    });
    expect(breakdownOf(idle, null).byKey).toEqual([]);
  });

  it("names the label's ten values of most requests; the rest are other values", () => {
    const values = Array.from({ length: 12 }, (_, i) => group("labelValue", `v${i}`, 12 - i));
    const byLabel = answer(
      [...values, group("otherValues", null, 4), group("withoutLabel", null, 22)],
      { groupBy: "label:suite" },
    );
    const breakdown = breakdownOf(byKey, byLabel);
    const total = 100; // the cycle's requests, from the read by key
    expect(breakdown.label).toBe("suite");
    expect(breakdown.byLabel.map((v) => v.value)).toEqual(values.slice(0, 10).map((v) => v.group));
    expect(breakdown.byLabel[0]).toEqual({ value: "v0", requests: 12, share: 12 / total });
    expect(breakdown.otherValues).toEqual({ requests: 2 + 1 + 4, share: 7 / total });
    expect(breakdown.unlabelled).toEqual({ requests: 22, share: 22 / total });
    expect(labelRows(breakdown).slice(-2).map((r) => [r.name, r.requests])).toEqual([
      ["Other values", 7],
      ["Without suite", 22],
    ]);
  });

  it("without labels, every request is without one", () => {
    const breakdown = breakdownOf(byKey, null);
    expect([breakdown.label, breakdown.byLabel, breakdown.otherValues.requests]).toEqual([
      null,
      [],
      0,
    ]);
    expect(breakdown.unlabelled).toEqual({ requests: 100, share: 1 });
    expect(labelRows(breakdown).map((r) => r.name)).toEqual(["Without a label"]);
  });

  it("has no shares in a cycle without requests", () => {
    const empty = breakdownOf(answer([], { groupBy: "apiKey" }), answer([], { groupBy: "label:ci" }));
    expect(empty).toEqual({
      requests: 0,
      byKey: [],
      unknownKey: { requests: 0, share: 0 },
      labels: [],
      label: "ci",
      byLabel: [],
      otherValues: { requests: 0, share: 0 },
      unlabelled: { requests: 0, share: 0 },
    });
  });

  it("reads the label of a label:<name> grouping", () => {
    expect(groupedLabel(answer([], { groupBy: "label:project" }))).toBe("project");
    expect(groupedLabel(answer([], { groupBy: "apiKey" }))).toBeNull();
    expect(groupedLabel(undefined)).toBeNull();
  });
});
