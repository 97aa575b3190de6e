/**
 * Directory sync calls (README "Directory sync (SCIM)"): the SCIM base URL and tokens (GET
 * /web/scim-tokens, Owners and Admins), generating a token (its secret comes back this once)
 * and revoking one; both mutations put the fresh list in the cache.
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";

const KEY = ["get", "/web/scim-tokens"] as const;

/** The base URL and the tokens (Owners and Admins). */
export function useDirectorySync() {
  return $api.useQuery("get", "/web/scim-tokens");
}

/** POST /web/scim-tokens: a new token; the response's `secret` is the only time it is shown. */
export function useGenerateScimToken() {
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/scim-tokens", {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** DELETE /web/scim-tokens/{token_id}: the identity provider's next request with it is refused. */
export function useRevokeScimToken() {
  const queryClient = useQueryClient();
  return $api.useMutation("delete", "/web/scim-tokens/{token_id}", {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}
