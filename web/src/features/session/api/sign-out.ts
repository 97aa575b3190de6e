import type { QueryClient } from "@tanstack/react-query";

import { fetchClient } from "@/api";
import { tokenStore } from "@/lib/token-store";

/**
 * Signs out: POST /web/session/sign-out with the bearer token (its failure is ignored: the
 * local sign-out below happens regardless), then clears the stored tokens and the cache.
 */
export async function signOut(queryClient: QueryClient): Promise<void> {
  if (tokenStore.read()) {
    await fetchClient.POST("/web/session/sign-out").catch(() => undefined);
  }
  signOutLocally(queryClient);
}

/** Forgets the tokens and every cached response, without calling the API. */
export function signOutLocally(queryClient: QueryClient): void {
  tokenStore.clear();
  queryClient.clear();
}
