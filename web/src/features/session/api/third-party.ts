import { useQuery, useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";
import { tokenStore } from "@/lib/token-store";

import { sessionQueryOptions } from "./session";

/**
 * Third-party sign-in (SPEC 4): exchange the hosted UI's code, then look up, join or create
 * an account for the identity.
 */

/** POST /web/session/token: stores the tokens; returns them with the identity. */
export function useExchangeCode() {
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/session/token", {
    onSuccess: (result) => {
      tokenStore.save(result.tokens);
      queryClient.removeQueries();
    },
  });
}

/** GET /web/sso-accounts: accounts the Google identity may join, and its domain. */
export function useSsoAccounts(identity: { username: string; email: string } | null, enabled: boolean) {
  return useQuery({
    ...$api.queryOptions("get", "/web/sso-accounts", {
      params: { query: { cognitoId: identity?.username ?? "", email: identity?.email ?? "" } },
    }),
    enabled: enabled && identity !== null,
    retry: false,
  });
}

/** After joining or creating, the identity has a session: load it again. */
function useRefetchSession() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: sessionQueryOptions().queryKey });
}

/** POST /web/sso-accounts/join. */
export function useJoinSsoAccount() {
  const refetch = useRefetchSession();
  return $api.useMutation("post", "/web/sso-accounts/join", { onSuccess: refetch });
}

/** POST /web/sso-accounts/create. */
export function useCreateSsoAccount() {
  const refetch = useRefetchSession();
  return $api.useMutation("post", "/web/sso-accounts/create", { onSuccess: refetch });
}
