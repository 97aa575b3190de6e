import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";
import { tokenStore } from "@/lib/token-store";

/**
 * POST /web/session/sign-in. On tokens, stores them and drops whatever the cache held for a
 * previous user; a new-password challenge is returned to the caller untouched.
 */
export function useSignIn() {
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/session/sign-in", {
    onSuccess: (result) => {
      if (result.tokens) {
        tokenStore.save(result.tokens);
        queryClient.removeQueries();
      }
    },
  });
}
