import { $api, useRefetchAccountAndSession } from "@/api";

/**
 * Email ownership (README "Security model"): a registrant proves their address with the code
 * Cognito emails them. Entering it refetches the session (its `emailVerified`), which hides
 * the banner and opens inviting, domains and single sign-on.
 */

/** POST /web/session/email-verification: Cognito emails a new code (it replaces the last). */
export function useSendEmailCode() {
  return $api.useMutation("post", "/web/session/email-verification");
}

/** POST /web/session/email-verification/confirm: { code }. */
export function useConfirmEmailCode() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("post", "/web/session/email-verification/confirm", { onSuccess: refetch });
}
