/**
 * Why the API ended this browser's session, shown once on /login: the account's sign-in
 * policy refused the session's token or its refresh (the API client recognises the refusal,
 * api/errors.ts `signInPolicyRefusal`; README "Security model"). Kept in sessionStorage so it
 * survives the redirect and a reload of /login, and dropped once shown.
 */
const KEY = "console.signInNotice";

/** Remember `message` (the API's wording of the refusal) for the login screen. */
export function rememberSignInNotice(message: string): void {
  try {
    sessionStorage.setItem(KEY, message);
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
