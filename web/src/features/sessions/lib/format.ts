/** How the Sessions page words a session (README "Sessions"; docs/users/sessions.md). */
import type { components } from "@/api/schema";

export type Session = components["schemas"]["SessionView"];

/** How it signed in. A record: a method the contract adds fails the typecheck until named here. */
export const METHOD_TEXT: Record<Session["method"], string> = {
  password: "Password",
  passkey: "Passkey",
  google: "Google",
  github: "GitHub",
  saml: "SAML single sign-on",
  recoveryCode: "Recovery code",
};

/** "Chrome 120 on macOS", "Chrome 120", "Unknown browser on Linux", "Unknown browser". */
export function deviceText({ browser, os }: Pick<Session, "browser" | "os">): string {
  const name = browser?.trim() || "Unknown browser";
  return os?.trim() ? `${name} on ${os.trim()}` : name;
}

/** This browser's session first, then the others in the API's order (the latest active first). */
export function currentFirst(sessions: readonly Session[]): Session[] {
  return [...sessions.filter((s) => s.current), ...sessions.filter((s) => !s.current)];
}

/** The list's summary: "3 sessions, this browser's first.", "Only this browser." */
export function listSummary(sessions: readonly Session[]): string {
  const n = sessions.length;
  const current = sessions.some((s) => s.current);
  if (n === 1 && current) return "Only this browser.";
  return `${n} ${n === 1 ? "session" : "sessions"}${current ? ", this browser's first" : ""}.`;
}

/** What the confirmation says signing out the other sessions will do, `others` of them. */
export function endOthersText(others: number): string {
  return others === 1
    ? "The other session will be signed out: it goes to the sign-in page at its next step."
    : `All ${others} other sessions will be signed out: each goes to the sign-in page at its next step.`;
}

/** What signing out the other sessions did: "Signed out 2 other sessions." */
export function endedText(ended: number): string {
  if (ended === 0) return "No other session was signed in.";
  return `Signed out ${ended} other ${ended === 1 ? "session" : "sessions"}.`;
}

/** A phone's or a tablet's operating system (the row's icon), else a computer's. */
export function isMobile(os: string | null): boolean {
  return /^(ios|ipados|android)\b/i.test(os?.trim() ?? "");
}
