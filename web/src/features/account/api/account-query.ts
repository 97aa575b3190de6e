/**
 * The account's read on its own, apart from the account's other calls (./account.ts): the app
 * prefetches it on every signed-in route (app/routes.tsx) and the shell reads it, so this
 * module is in the first load of every route, the rest only in the pages that use it.
 */
import { useQuery } from "@tanstack/react-query";

import { $api } from "@/api";

/**
 * GET /web/account: the whole account of the signed-in user. Fetched again when the window
 * regains focus once the data is stale (usage keeps coming in); an unchanged account then
 * costs a 304 and no re-render (api/conditional.ts).
 */
export function useAccount() {
  return useQuery(accountQueryOptions());
}

/** The query of {@link useAccount}, for a prefetch (app/routes.tsx starts it with the session). */
export const accountQueryOptions = () =>
  $api.queryOptions("get", "/web/account", undefined, { refetchOnWindowFocus: true });
