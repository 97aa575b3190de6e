import { $api, useRefetchAccountAndSession } from "@/api";

/**
 * GET /web/account: the whole account of the signed-in user. Fetched again when the window
 * regains focus once the data is stale (usage keeps coming in); an unchanged account then
 * costs a 304 and no re-render (api/conditional.ts).
 */
export function useAccount() {
  return $api.useQuery("get", "/web/account", undefined, { refetchOnWindowFocus: true });
}

/**
 * PUT /web/account: rename the account. On success the account and the session (whose
 * account name the sidebar shows) are fetched again (SPEC 7 "After updates the account and
 * session are fetched again").
 */
export function useUpdateAccountName() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("put", "/web/account", { onSuccess: refetch });
}
