import { useQuery } from "@tanstack/react-query";

import { $api } from "@/api";

/**
 * GET /web/session: the signed-in user and their account's name.
 * The route guard handles a failure itself (it knows the attempted path), hence
 * `skipAuthRedirect`. Session data changes only through our own writes, which invalidate it.
 */
export const sessionQueryOptions = () =>
  $api.queryOptions("get", "/web/session", undefined, {
    meta: { skipAuthRedirect: true },
    staleTime: 5 * 60_000,
    retry: false,
  });

export function useSession() {
  return useQuery(sessionQueryOptions());
}
