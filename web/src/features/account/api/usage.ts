/**
 * Where a billing cycle's requests went, read from GET /web/usage (README "Usage API"). Apart
 * from ./account.ts, whose query options the app's first chunk holds: this loads with the page.
 */
import { keepPreviousData } from "@tanstack/react-query";
import { useMemo, useState } from "react";

import { $api } from "@/api";

import { type Cycle, breakdownOf } from "../lib/usage-series";

import { usageJson } from "./account";

/** GET /web/usage over one billing cycle (`from` its start, `to` its end), grouped by `groupBy`. */
function useCycleGroups(cycle: Cycle | undefined, groupBy: string | null) {
  const query = { granularity: "cycle" as const, from: cycle?.start, to: cycle?.end, groupBy };
  return $api.useQuery(
    "get",
    "/web/usage",
    { params: { query } },
    {
      enabled: cycle !== undefined && groupBy !== null,
      placeholderData: keepPreviousData,
      select: usageJson,
    },
  );
}

/**
 * Where one billing cycle's requests went (README "Usage alerts and export"): GET /web/usage
 * over the cycle grouped by API key, which also names the labels the cycle's records carried,
 * and grouped by `label` (null: the cycle's first). The previous breakdown stays shown while
 * another cycle or label loads, so the panel does not jump; `isPending` until the first one is
 * in.
 */
export function useCycleBreakdown(cycle: Cycle | undefined, label: string | null) {
  const byKey = useCycleGroups(cycle, "apiKey");
  const keysIn = byKey.data !== undefined && !byKey.isPlaceholderData;
  const chosen = label ?? (keysIn ? (byKey.data?.labels[0] ?? null) : null);
  const byLabel = useCycleGroups(cycle, keysIn && chosen ? `label:${chosen}` : null);
  const labelIn = chosen === null || (byLabel.data !== undefined && !byLabel.isPlaceholderData);
  const keyData = keysIn ? byKey.data : undefined;
  const labelData = chosen !== null && labelIn ? byLabel.data : undefined;
  const ready = keyData !== undefined && labelIn;
  const breakdown = useMemo(
    () => (ready && keyData ? breakdownOf(keyData, labelData ?? null) : undefined),
    [ready, keyData, labelData],
  );
  // Kept while the next cycle or label loads (React's "storing information from previous renders").
  const [shown, setShown] = useState(breakdown);
  if (breakdown !== undefined && breakdown !== shown) setShown(breakdown);
  const data = breakdown ?? shown;
  const error = byKey.error ?? byLabel.error;
  return { data, error, isPending: data === undefined && !error };
}
