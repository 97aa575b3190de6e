/**
 * Directory sync calls (README "Directory sync (SCIM)"): the SCIM base URL and tokens (GET
 * /web/scim-tokens, Owners and Admins), generating a token (its secret comes back this once)
 * and revoking one; both mutations put the fresh list in the cache. The directory's groups
 * (GET /web/scim-groups) and the role each gives (PUT /web/scim-groups/{id}/role): a mapping
 * changes people's roles, so the account and the session are fetched again after it.
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api, useRefetchAccountAndSession } from "@/api";

const KEY = ["get", "/web/scim-tokens"] as const;
const GROUPS_KEY = ["get", "/web/scim-groups"] as const;

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

/** The directory's groups, by name, with the role each gives (Owners and Admins). */
export function useDirectoryGroups() {
  return $api.useQuery("get", "/web/scim-groups");
}

/** PUT /web/scim-groups/{group_id}/role: { role } (null: none); only Owners map to Owner. */
export function useMapDirectoryGroup() {
  const queryClient = useQueryClient();
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("put", "/web/scim-groups/{group_id}/role", {
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: GROUPS_KEY });
      await refetch();
    },
  });
}
