/**
 * The billing cycles' usage read on its own, apart from the account's other calls
 * (./account.ts), as ./account-query.ts is: the app prefetches it for Account Information
 * (app/routes.tsx), so this module is in the first load of every route; the account's other
 * calls (alerts, limits, API keys, the CSV export and its download) only in the pages that use
 * them.
 */
import { useQuery } from "@tanstack/react-query";

import { $api } from "@/api";
import type { components } from "@/api/schema";

type UsageResponse = components["schemas"]["UsageResponse"];

/**
 * The JSON of a GET /web/usage answer: the contract also lists its CSV (`Accept: text/csv`),
 * which the SPA never asks for. Here, beside the query options the app's first chunk holds
 * (../lib/usage-series.ts loads with the page).
 */
export function usageJson(data: UsageResponse | string): UsageResponse {
  if (typeof data === "string") throw new Error("GET /web/usage answered CSV, not JSON");
  return data;
}

/**
 * GET /web/usage?granularity=cycle: the last 12 billing cycles (the current one last), each
 * with its requests, records and runs per platform: the Usage Overview (SPEC 1, 9). Fetched
 * again when the window regains focus once stale, as the account is (usage keeps coming in).
 */
export function useCycleUsage() {
  return useQuery(cycleUsageQueryOptions());
}

/** The query of {@link useCycleUsage}, for a prefetch (app/routes.tsx starts it with the account's). */
export const cycleUsageQueryOptions = () =>
  $api.queryOptions(
    "get",
    "/web/usage",
    { params: { query: { granularity: "cycle" } } },
    { refetchOnWindowFocus: true, select: usageJson },
  );
