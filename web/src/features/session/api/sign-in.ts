import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";
import type { components } from "@/api/schema";
import { tokenStore } from "@/lib/token-store";

type SignInResponse = components["schemas"]["SignInResponse"];

/** A sign-in's tokens are stored, and whatever the cache held for a previous user dropped. */
function useKeepTokens() {
  const queryClient = useQueryClient();
  return (result: SignInResponse) => {
    if (result.tokens) {
      tokenStore.save(result.tokens);
      queryClient.removeQueries();
    }
  };
}

/**
 * POST /web/session/sign-in. On tokens, stores them and drops whatever the cache held for a
 * previous user; a new-password challenge is returned to the caller untouched.
 */
export function useSignIn() {
  return $api.useMutation("post", "/web/session/sign-in", { onSuccess: useKeepTokens() });
}

/**
 * POST /web/session/passkey (docs/users/passkeys.md "Signing in with a passkey"): the
 * browser's answer to the passkey prompt; its tokens are kept as a password sign-in's are.
 */
export function useSignInWithPasskey() {
  return $api.useMutation("post", "/web/session/passkey", { onSuccess: useKeepTokens() });
}

/**
 * POST /web/session/authorize/sso ('Sign in with SSO', README "SAML single sign-on"): the
 * hosted UI's authorize URL for the SAML connection of the work email's domain, with state and
 * PKCE as for Google; a domain without one is refused ('No single sign-on is set up for ...').
 */
export function useStartSso() {
  return $api.useMutation("post", "/web/session/authorize/sso");
}
