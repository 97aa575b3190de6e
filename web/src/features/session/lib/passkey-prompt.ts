/**
 * The first half of a passkey sign-in (docs/users/passkeys.md "Signing in with a passkey"),
 * loaded when 'Sign in with a passkey' is clicked so the sign-in page's first load stays small
 * (README "Performance"): the options for the email, then the browser's prompt. Its answer goes
 * to POST /web/session/passkey, which signs in as a password does.
 */
import { fetchClient } from "@/api";
import { credentialJSON, requestOptions } from "@/lib/webauthn";

export { isCancelled, passkeysSupported } from "@/lib/webauthn";

/**
 * POST /web/session/passkey/options for `email`, then `navigator.credentials.get`. Throws the
 * API's error (NoPasskey for an email without one) or the browser's (NotAllowedError when the
 * prompt is closed).
 */
export async function askForPasskey(email: string): Promise<{ session: string; credential: Record<string, unknown> }> {
  const { data } = await fetchClient.POST("/web/session/passkey/options", { body: { email } });
  if (!data) throw new Error("No passkey options were received.");
  const credential = (await navigator.credentials.get({ publicKey: requestOptions(data.options) })) as PublicKeyCredential | null;
  if (!credential) throw new DOMException("The browser gave no passkey.", "NotAllowedError");
  return { session: data.session, credential: credentialJSON(credential) };
}
