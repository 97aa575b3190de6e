import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";
import { type IssuedTokens, tokenStore } from "@/lib/token-store";

/**
 * The password flows of the login screen (SPEC 4): answering the new-password challenge,
 * asking for a reset code and setting the new password with it. Tokens a call returns are
 * stored and the cache of any previous user is dropped, as on sign-in.
 */
export function useStoreTokens() {
  const queryClient = useQueryClient();
  return (result: { tokens?: IssuedTokens | null }) => {
    if (result.tokens) {
      tokenStore.save(result.tokens);
      queryClient.removeQueries();
    }
  };
}

/** POST /web/session/complete-new-password. */
export function useCompleteNewPassword() {
  const storeTokens = useStoreTokens();
  return $api.useMutation("post", "/web/session/complete-new-password", { onSuccess: storeTokens });
}

/** POST /web/session/forgot-password: `codeDelivery` is null when the provider stayed silent. */
export function useForgotPassword() {
  return $api.useMutation("post", "/web/session/forgot-password");
}

/** POST /web/session/confirm-forgot-password: sets the password and signs in. */
export function useConfirmForgotPassword() {
  const storeTokens = useStoreTokens();
  return $api.useMutation("post", "/web/session/confirm-forgot-password", { onSuccess: storeTokens });
}
