/**
 * The message the SAML test window (/oauth/saml-test) sends the console window that opened it
 * (README "SAML single sign-on", test sign-in): the code and state Cognito sent it back with,
 * or the error it reported. Same origin only (`postMessage` with the console's origin, and
 * checked on receipt); the code is good only with the test's flow cookie of this browser.
 */
export const SAML_TEST_PATH = "/oauth/saml-test";

export type SamlTestMessage =
  | { type: "saml-test"; code: string; state: string }
  | { type: "saml-test"; error: string };

/** Where the hosted UI sends the test window back to. */
export function samlTestRedirectUri(): string {
  return `${window.location.origin}${SAML_TEST_PATH}`;
}

/** The message of a window's `message` event if it is a test result from this origin. */
export function samlTestMessage(event: MessageEvent): SamlTestMessage | null {
  if (event.origin !== window.location.origin) return null;
  const data: unknown = event.data;
  if (typeof data !== "object" || data === null || (data as { type?: unknown }).type !== "saml-test") {
    return null;
  }
  const { code, state, error } = data as Record<string, unknown>;
  if (typeof code === "string" && typeof state === "string") return { type: "saml-test", code, state };
  if (typeof error === "string") return { type: "saml-test", error };
  return null;
}
