/**
 * Access token calls (README "Automation"; docs/integrators/access-tokens.md): the account's
 * tokens and whether they work (GET /web/access-tokens, Owners and Admins), creating one (its
 * secret comes back this once), revoking one, and the Owner's switch (PUT
 * /web/access-token-policy). Every change refetches the list.
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";

const KEY = ["get", "/web/access-tokens"] as const;

function useRefetchTokens() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** The tokens, newest first (revoked and expired ones too), `enabled` and `maxTokens`. */
export function useAccessTokens() {
  return $api.useQuery("get", "/web/access-tokens");
}

/**
 * POST /web/access-tokens: { name, expiresOn, scopes }; the response's `secret` is the only
 * time the token is shown. No cache time: once the dialog resets the mutation (or unmounts),
 * React Query drops it, secret and all, instead of keeping it for five minutes.
 */
export function useCreateAccessToken() {
  const refetch = useRefetchTokens();
  return $api.useMutation("post", "/web/access-tokens", { onSuccess: refetch, gcTime: 0 });
}

/** DELETE /web/access-tokens/{token_id}: its next request is refused (401 AccessTokenRevoked). */
export function useRevokeAccessToken() {
  const refetch = useRefetchTokens();
  return $api.useMutation("delete", "/web/access-tokens/{token_id}", { onSuccess: refetch });
}

/** PUT /web/access-token-policy: { enabled } (Owners); off, every token is refused at once. */
export function useSetAccessTokenPolicy() {
  const refetch = useRefetchTokens();
  return $api.useMutation("put", "/web/access-token-policy", { onSuccess: refetch });
}
