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

/**
 * POST /web/session/authorize/sso ('Sign in with SSO', README "SAML single sign-on"): the
 * hosted UI's authorize URL for the SAML connection of the work email's domain, with state and
 * PKCE as for Google; a domain without one is refused ('No single sign-on is set up for ...').
 */
export function useStartSso() {
  return $api.useMutation("post", "/web/session/authorize/sso");
}
