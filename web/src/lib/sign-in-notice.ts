/**
 * Why the API ended this browser's session, shown once on /login: the account's sign-in
 * policy refused the session's token or its refresh (a 401 whose code is one of the policy's
 * refusals, README "Security model"). Kept in sessionStorage so it survives the redirect and
 * a reload of /login, and dropped once shown.
 */
import { isEnvelope } from "@/api/errors";

const KEY = "console.signInNotice";

/** The 401 codes of the sign-in policy (`SignInPolicyRefusal` in the contract). */
export const SIGN_IN_POLICY_CODES: ReadonlySet<string> = new Set([
  "AccessDeactivated",
  "GoogleSignInRequired",
  "InvitationLapsed",
  "SessionEnded",
  "UserRemoved",
]);

/** Remember the message of `body` when it is a sign-in policy refusal. */
export function noteSignInRefusal(body: unknown): void {
  if (!isEnvelope(body) || !SIGN_IN_POLICY_CODES.has(body.code)) return;
  try {
    sessionStorage.setItem(KEY, body.message);
  } catch {
    // storage unavailable: the login screen just shows no reason
  }
}

/** The remembered message, if any (it stays until `clearSignInNotice`). */
export function peekSignInNotice(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function clearSignInNotice(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing to clear
  }
}
