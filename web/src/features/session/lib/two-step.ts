/**
 * Two-step sign-in on the SPA's side (README "Two-step sign-in"): what a sign-in's answer asks
 * for next, the authenticator app's `otpauth://` URI, and how recovery codes are saved.
 */
import type { components } from "@/api/schema";

type SignInResponse = components["schemas"]["SignInResponse"];

const SOFTWARE_TOKEN_MFA = "SOFTWARE_TOKEN_MFA";
/** SPEC 5's style: the field's message when it is empty. */
export const CODE_REQUIRED = "Enter the 6-digit code from your authenticator app";
export const RECOVERY_CODE_REQUIRED = "Enter a recovery code";

/** What a sign-in's answer asks for next. */
export type NextStep =
  | { kind: "signedIn" }
  | { kind: "twoStepSetup"; username: string }
  | { kind: "twoStepCode"; username: string; session: string }
  | { kind: "challenge"; name: string; username: string; session: string };

export function nextStep(result: SignInResponse, username: string): NextStep {
  if (result.tokens) {
    return result.twoStepSetupRequired ? { kind: "twoStepSetup", username } : { kind: "signedIn" };
  }
  const challenge = result.challenge;
  const who = challenge?.username || username;
  if (challenge?.name === SOFTWARE_TOKEN_MFA) {
    return { kind: "twoStepCode", username: who, session: challenge.session };
  }
  return { kind: "challenge", name: challenge?.name ?? "none", username: who, session: challenge?.session ?? "" };
}

/**
 * The Key Uri Format authenticator apps read from a QR code:
 * `otpauth://totp/<issuer>:<account>?secret=<base32>&issuer=<issuer>` (SHA-1, 6 digits, 30 s:
 * the defaults, which Cognito's codes are).
 */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}`;
}

/** The secret as people type it into an app: groups of four. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, "$1 ");
}

/** The text file of recovery codes a user downloads: what they are, then one code a line. */
export function recoveryCodesText(issuer: string, email: string, codes: readonly string[]): string {
  return [
    `${issuer} recovery codes for ${email}`,
    "Each code signs you in once in place of your authenticator app's code.",
    "",
    ...codes,
    "",
  ].join("\n");
}
