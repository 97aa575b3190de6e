import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { apiQuery, filtersFromSearch, hasFilters, searchOfFilters } from "./filters";

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const ACTOR = "0b6a1f0e-3c1d-4c8e-9a51-2f7d6a0c9e11";

describe("activity filters in the URL", () => {
  it("reads the filters a shared link holds", () => {
    const search = new URLSearchParams(`actor=${ACTOR}&action=user.invited&from=2026-11-01&to=2026-11-24`);
    expect(filtersFromSearch(search)).toEqual({
      actor: ACTOR,
      action: "user.invited",
      from: "2026-11-01",
      to: "2026-11-24",
    });
  });

  it("ignores what is not a filter", () => {
    const search = new URLSearchParams("actor=robert');drop&action=user.hacked&from=2026-02-30&to=yesterday");
    const filters = filtersFromSearch(search);
    expect(filters).toEqual({ actor: null, action: null, from: null, to: null });
    expect(hasFilters(filters)).toBe(false);
  });

  it("writes only the filters that are set", () => {
    const search = searchOfFilters({ actor: null, action: "sso.changed", from: "2026-11-01", to: null });
    expect(search.toString()).toBe("action=sso.changed&from=2026-11-01");
    expect(filtersFromSearch(search).action).toBe("sso.changed");
  });
});

describe("activity filters as API parameters", () => {
  let zone: string | undefined;
  beforeEach(() => {
    zone = env.TZ;
    env.TZ = "Europe/Paris";
  });
  afterEach(() => {
    env.TZ = zone;
  });

  it("sends nothing without filters", () => {
    expect(apiQuery({ actor: null, action: null, from: null, to: null })).toEqual({});
  });

  it("turns the reader's days into instants, the last day included", () => {
    // 29 March 2026 is 23 hours long in Paris (summer time starts at 02:00).
    expect(apiQuery({ actor: ACTOR, action: "user.deleted", from: "2026-03-29", to: "2026-03-29" })).toEqual({
      actorId: ACTOR,
      action: ["user.deleted"],
      from: "2026-03-28T23:00:00.000Z",
      to: "2026-03-29T22:00:00.000Z",
    });
  });

  it("ends a month's last day at the next month's first", () => {
    expect(apiQuery({ actor: null, action: null, from: null, to: "2026-12-31" })).toEqual({
      to: "2026-12-31T23:00:00.000Z",
    });
  });
});
