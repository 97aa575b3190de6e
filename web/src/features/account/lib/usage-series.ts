/**
 * What Account Information reads of GET /web/usage (README "Usage API"), as its panels use it.
 * Pure, unit-tested.
 *
 * - The Usage Overview (SPEC 1, 3 "Usage entry", 9): the billing cycles of
 *   `granularity=cycle`, each an entry with its start, its requests and per platform (web,
 *   nativeMobile, api) its runs and credits (SPEC's name for a platform's requests).
 * - Where the requests went: one cycle read grouped by API key (which also names the labels its
 *   records carried) and by a label, put together as the panel shows it: every key that sent
 *   requests, then what no recorded key sent; the label's 10 values of most requests, the other
 *   values together (those past a label's 1,000 of the cycle included), then the requests
 *   without the label; each with its share of the cycle.
 */
import type { components } from "@/api/schema";

import type { UsageInput } from "./usage-graph";

type UsageResponse = components["schemas"]["UsageResponse"];
type UsageBucket = components["schemas"]["UsageBucket"];
type UsageGroup = components["schemas"]["UsageGroup"];

/** How many values of a label the breakdown names; the rest add up in `otherValues`. */
export const TOP_LABEL_VALUES = 10;

/** A billing cycle as the page picks it: its start (epoch ms, and as the API wrote it) and end. */
export interface Cycle {
  startMs: number;
  start: string;
  end: string;
}

export interface Share {
  requests: number;
  /** Of the cycle's requests, 0 to 1 (0 when the cycle has none). */
  share: number;
}

export interface KeyShare extends Share {
  keyId: string;
  masked: string;
  expired: boolean;
}

export interface ValueShare extends Share {
  value: string;
}

/** Where one cycle's requests went; `byKey` and the label's rows each add up to `requests`. */
export interface Breakdown {
  requests: number;
  byKey: KeyShare[];
  unknownKey: Share;
  /** The names of the labels the cycle's records carried, sorted. */
  labels: string[];
  /** The label broken down, null when the cycle has none. */
  label: string | null;
  byLabel: ValueShare[];
  otherValues: Share;
  unlabelled: Share;
}

/** The Usage Overview's entries: one per cycle of a `granularity=cycle` answer, oldest first. */
export function cycleEntries(usage: UsageResponse): UsageInput[] {
  return usage.buckets.map((bucket) => ({
    startMs: Date.parse(bucket.start),
    requests: bucket.requests,
    web: { runs: bucket.web.runs, credits: bucket.web.requests },
    nativeMobile: { runs: bucket.nativeMobile.runs, credits: bucket.nativeMobile.requests },
    api: { runs: bucket.api.runs, credits: bucket.api.requests },
  }));
}

/** The cycles of a `granularity=cycle` answer, oldest first. */
export function cyclesOf(usage: UsageResponse): Cycle[] {
  return usage.buckets.map(({ start, end }) => ({ startMs: Date.parse(start), start, end }));
}

/** The label a `groupBy=label:<name>` answer is grouped by (null for any other). */
export function groupedLabel(usage: UsageResponse | undefined): string | null {
  const groupBy = usage?.groupBy ?? "";
  return groupBy.startsWith("label:") ? groupBy.slice("label:".length) : null;
}

const share = (requests: number, total: number): Share => ({
  requests,
  share: total ? requests / total : 0,
});

const sum = (groups: UsageGroup[]) => groups.reduce((total, g) => total + g.requests, 0);

/**
 * The breakdown of the one cycle of `byKey` (the cycle grouped by API key) and `byLabel` (the
 * same cycle grouped by a label; null when it has no labels). The API lists a bucket's groups
 * most requests first (ties: the newest key, or by value), the rests last.
 */
export function breakdownOf(byKey: UsageResponse, byLabel: UsageResponse | null): Breakdown {
  const bucket: UsageBucket | undefined = byKey.buckets[0];
  const total = bucket?.requests ?? 0;
  const keys = new Map(byKey.apiKeys.map((k) => [k.id, k]));
  const byKeyGroups = bucket?.groups ?? [];
  const labelGroups = byLabel?.buckets[0]?.groups ?? [];
  const values = labelGroups.filter((g) => g.kind === "labelValue");
  const named = values.slice(0, TOP_LABEL_VALUES);
  const rest = [...values.slice(TOP_LABEL_VALUES), ...labelGroups.filter((g) => g.kind === "otherValues")];
  return {
    requests: total,
    byKey: byKeyGroups
      .filter((g) => g.kind === "apiKey" && g.requests > 0)
      .map((g) => {
        const key = keys.get(g.group ?? "");
        return {
          keyId: g.group ?? "",
          masked: key?.masked ?? "",
          expired: key?.expired ?? false,
          ...share(g.requests, total),
        };
      }),
    unknownKey: share(sum(byKeyGroups.filter((g) => g.kind === "keyNotRecorded")), total),
    labels: byKey.labels,
    label: groupedLabel(byLabel ?? undefined),
    byLabel: named.map((g) => ({ value: g.group ?? "", ...share(g.requests, total) })),
    otherValues: share(sum(rest), total),
    unlabelled: share(
      byLabel ? sum(labelGroups.filter((g) => g.kind === "withoutLabel")) : total,
      total,
    ),
  };
}
