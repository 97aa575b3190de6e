import { $api, useRefetchAccountAndSession } from "@/api";

/** GET /web/account: the whole account of the signed-in user. */
export function useAccount() {
  return $api.useQuery("get", "/web/account");
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
