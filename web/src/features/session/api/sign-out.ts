import type { QueryClient } from "@tanstack/react-query";

import { fetchClient } from "@/api";
import { tokenStore } from "@/lib/token-store";

/**
 * Signs out: POST /web/session/sign-out with the bearer token, which revokes the refresh
 * tokens at the identity provider and clears the httpOnly refresh token cookie (sent even
 * when no session is known here, so a leftover cookie goes too; its failure is ignored: the
 * local sign-out below happens regardless), then forgets the tokens and the cache.
 */
export async function signOut(queryClient: QueryClient): Promise<void> {
  await fetchClient.POST("/web/session/sign-out").catch(() => undefined);
  signOutLocally(queryClient);
}

/** Forgets the tokens and every cached response, without calling the API. */
export function signOutLocally(queryClient: QueryClient): void {
  tokenStore.clear();
  queryClient.clear();
}
