import { describe, expect, it } from "vitest";

import {
  BAR_WIDTH,
  CHART_HEIGHT,
  type UsageInput,
  formatDay,
  graphMaximum,
  nextCycleStart,
  resetDate,
  usageGraph,
  usageSummary,
} from "./usage-graph";

const DAY = 86_400_000;
const utc = (y: number, m: number, d: number, h = 0) => Date.UTC(y, m - 1, d, h);
const iso = (ms: number) => new Date(ms).toISOString();

function entry(startMs: number, web = 0, nativeMobile = 0, api = 0): UsageInput {
  return {
    startMs,
    requests: web + nativeMobile + api,
    web: { runs: web ? 1 : 0, credits: web },
    nativeMobile: { runs: nativeMobile ? 1 : 0, credits: nativeMobile },
    api: { runs: api ? 1 : 0, credits: api },
  };
}

const free100 = { units: 0, unitPlanRequests: 1000, freePlanRequests: 100 };
const NOV_21 = Date.UTC(2026, 10, 21);

describe("graphMaximum (SPEC 9)", () => {
  it("is at least 50, rounded up to a multiple of 3", () => {
    expect(graphMaximum(0, 0)).toBe(51);
    expect(graphMaximum(10, 20)).toBe(51);
  });

  it("takes plan x1.5 or peak x1.1, whichever is larger", () => {
    expect(graphMaximum(100, 100)).toBe(150); // plan 150 > peak 110
    expect(graphMaximum(200, 100)).toBe(222); // peak 220 -> next multiple of 3
  });

  it("rounds to 3 up to 300, to 30 up to 3,000 and to 300 above", () => {
    expect(graphMaximum(0, 200)).toBe(300); // exactly 300: still the 3-step band
    expect(graphMaximum(274, 0)).toBe(330); // 301.4 -> multiple of 30
    expect(graphMaximum(300, 0)).toBe(330); // 300 x 1.1 is exactly 330, not 360
    expect(graphMaximum(0, 2000)).toBe(3000); // exactly 3,000: still the 30-step band
    expect(graphMaximum(2728, 0)).toBe(3300); // 3,000.8 -> multiple of 300
    for (const [peak, plan] of [[7, 0], [455, 17], [98_765, 4000]] as const) {
      expect(graphMaximum(peak, plan) % 3).toBe(0);
    }
  });
});

describe("usageGraph (SPEC 9)", () => {
  it("draws nothing but the axis and the limit when there is no usage", () => {
    const graph = usageGraph([entry(NOV_21)], free100);
    expect(graph.maximum).toBe(150);
    expect(graph.bars).toHaveLength(1);
    expect(graph.bars[0]).toMatchObject({ height: 0, y: CHART_HEIGHT, segments: [] });
    expect(graph.yLabels).toEqual([
      { value: 0, y: 150 },
      { value: 50, y: 100 },
      { value: 100, y: 50 },
      { value: 150, y: 0 },
    ]);
    expect(graph.limitY).toBe(50); // 100 of 150
    expect(usageGraph([], free100).bars).toEqual([]);
  });

  it("centres a single cycle's 16px bar in the 500px plot, with month and date labels", () => {
    const [bar] = usageGraph([entry(NOV_21, 30)], free100).bars;
    expect(bar!.x).toBe((500 - BAR_WIDTH) / 2);
    expect(bar!.month).toBe("Nov");
    expect(bar!.date).toBe("21");
  });

  it("stacks web, nativeMobile and api by credits, bottom to top", () => {
    const graph = usageGraph([entry(NOV_21, 60, 30, 15)], free100); // max = 150
    const [bar] = graph.bars;
    expect(bar!.height).toBeCloseTo(105);
    expect(bar!.segments.map((s) => [s.series, s.height, s.y])).toEqual([
      ["web", 60, 90],
      ["nativeMobile", 30, 60],
      ["api", 15, 45],
    ]);
    expect(bar!.y).toBeCloseTo(45);
  });

  it("keeps usage over the limit inside the plot, the limit line below the bar's top", () => {
    const graph = usageGraph([entry(NOV_21 - 30 * DAY, 20), entry(NOV_21, 400)], free100);
    expect(graph.maximum).toBe(450); // 400 x 1.1 = 440 -> multiple of 30
    const over = graph.bars[1]!;
    expect(over.height).toBeCloseTo((400 / 450) * 150);
    expect(over.y).toBeGreaterThan(0);
    expect(graph.limitY!).toBeCloseTo(150 - (100 / 450) * 150);
    expect(graph.limitY!).toBeGreaterThan(over.y);
    // Two cycles share the plot: 250px slots, bars centred in them.
    expect(graph.bars.map((b) => b.x)).toEqual([117, 367]);
  });

  it("gives a small cycle at least 5% of the height, and an empty one none", () => {
    const graph = usageGraph([entry(NOV_21 - 30 * DAY, 1), entry(NOV_21, 0)], {
      units: 3,
      unitPlanRequests: 1000,
      freePlanRequests: 100,
    });
    expect(graph.maximum).toBe(4500);
    expect(graph.bars[0]!.height).toBeCloseTo(7.5);
    expect(graph.bars[0]!.segments[0]!.height).toBeCloseTo(7.5);
    expect(graph.bars[1]!.height).toBe(0);
  });

  it("uses the free plan at zero units, and draws no limit when the plan allows nothing", () => {
    const free = usageGraph([entry(NOV_21, 9)], { units: 0, unitPlanRequests: 1000, freePlanRequests: 250 });
    expect(free.planRequests).toBe(250);
    const none = usageGraph([entry(NOV_21, 9)], { units: 0, unitPlanRequests: 0, freePlanRequests: 0 });
    expect(none.limitY).toBeNull();
    expect(none.maximum).toBe(51);
  });
});

describe("usageGraph with a forecast (README 'Usage alerts and export')", () => {
  it("extends the current bar from its top to the projected requests, in the same scale", () => {
    const graph = usageGraph([entry(NOV_21 - 30 * DAY, 90), entry(NOV_21, 30, 10)], free100, 120);
    expect(graph.maximum).toBe(150); // plan 150 > forecast 132 > peak 99
    const current = graph.bars[1]!;
    expect(current.y).toBeCloseTo(110); // 40 of 150
    expect(graph.forecast).toEqual({ x: current.x, y: 30, height: expect.closeTo(80) as number, requests: 120 });
    expect(graph.forecast!.y + graph.forecast!.height).toBeCloseTo(current.y);
  });

  it("raises the maximum so a forecast above the peak and the plan fits, the limit line below it", () => {
    const graph = usageGraph([entry(NOV_21 - 30 * DAY, 90), entry(NOV_21, 60)], free100, 400);
    expect(graph.maximum).toBe(450); // forecast 400 x 1.1 = 440 -> multiple of 30
    expect(graph.forecast!.y).toBeCloseTo(150 - (400 / 450) * 150);
    expect(graph.forecast!.y).toBeGreaterThan(0);
    expect(graph.limitY!).toBeGreaterThan(graph.forecast!.y);
    expect(graph.yLabels.at(-1)!.value).toBe(450);
  });

  it("draws no extension above a bar held at its minimum height", () => {
    const graph = usageGraph([entry(NOV_21, 1)], { units: 3, unitPlanRequests: 1000, freePlanRequests: 100 }, 2);
    const [bar] = graph.bars;
    expect(bar!.height).toBeCloseTo(7.5); // 5% of 150
    expect(graph.forecast).toMatchObject({ y: bar!.y, height: 0, requests: 2 });
  });

  it("has no extension without a forecast or without cycles", () => {
    expect(usageGraph([entry(NOV_21, 30)], free100).forecast).toBeNull();
    expect(usageGraph([entry(NOV_21, 30)], free100, null).forecast).toBeNull();
    expect(usageGraph([], free100, 50).forecast).toBeNull();
  });
});

describe("reset date and summary (SPEC 9)", () => {
  it("is one calendar month after the latest cycle start, clamped to the month's end", () => {
    expect(formatDay(resetDate(NOV_21))).toBe("Dec 21, 2026");
    expect(formatDay(resetDate(Date.UTC(2027, 0, 31, 9)))).toBe("Feb 28, 2027");
    expect(formatDay(resetDate(Date.UTC(2026, 11, 15)))).toBe("Jan 15, 2027");
  });

  it("reads 'X of Y requests'", () => {
    expect(usageSummary(1234, 5000)).toBe("1,234 of 5,000 requests");
  });
});

describe("nextCycleStart (mirrors api/usage/cycles.py)", () => {
  it("is the same day and time one month later, across a year end", () => {
    expect(iso(nextCycleStart([utc(2026, 11, 21, 9)]))).toBe("2026-12-21T09:00:00.000Z");
    expect(iso(nextCycleStart([utc(2026, 12, 15)]))).toBe("2027-01-15T00:00:00.000Z");
  });

  it("clamps a day the month lacks to its last day, leap years included", () => {
    expect(iso(nextCycleStart([utc(2027, 1, 31, 9)]))).toBe("2027-02-28T09:00:00.000Z");
    expect(iso(nextCycleStart([utc(2028, 1, 31)]))).toBe("2028-02-29T00:00:00.000Z");
    expect(iso(nextCycleStart([utc(2026, 3, 31)]))).toBe("2026-04-30T00:00:00.000Z");
    expect(iso(nextCycleStart([utc(2026, 1, 30)]))).toBe("2026-02-28T00:00:00.000Z");
  });

  it("counts from the anchor, not from a clamped start: Jan 31, Feb 28, then Mar 31", () => {
    const anchored31 = [utc(2027, 1, 31), utc(2027, 2, 28)];
    expect(iso(nextCycleStart(anchored31))).toBe("2027-03-31T00:00:00.000Z");
    // An anchor on the 30th clamps in February and goes back to the 30th in March.
    expect(iso(nextCycleStart([utc(2026, 1, 30), utc(2026, 2, 28)]))).toBe("2026-03-30T00:00:00.000Z");
    // A Feb 28 anchor stays on the 28th.
    expect(iso(nextCycleStart([utc(2027, 2, 28)]))).toBe("2027-03-28T00:00:00.000Z");
  });

  it("finds a day-31 anchor in a full year of cycles that starts in a clamped month", () => {
    // Anchor Aug 31 2025; the 12 cycles shown run from Dec 31 2025 to Nov 30 2026.
    const starts = [
      utc(2025, 12, 31), utc(2026, 1, 31), utc(2026, 2, 28), utc(2026, 3, 31),
      utc(2026, 4, 30), utc(2026, 5, 31), utc(2026, 6, 30), utc(2026, 7, 31),
      utc(2026, 8, 31), utc(2026, 9, 30), utc(2026, 10, 31), utc(2026, 11, 30),
    ];
    expect(iso(nextCycleStart(starts))).toBe("2026-12-31T00:00:00.000Z");
  });
});
