import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";
import { tokenStore } from "@/lib/token-store";

/** POST /web/registration: creates the account and user and returns the user's tokens. */
export function useRegister() {
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/registration", {
    onSuccess: (tokens) => {
      tokenStore.save(tokens);
      queryClient.removeQueries();
    },
  });
}
