/**
 * Who may require Google SSO (SPEC 5 "Other"; README "Verified domains"): the Google option is disabled when
 * the current user has a Gmail address or did not sign in with Google, or while the account
 * has no verified domain; the tooltip says why.
 */
import { emailDomain, isGmailDomain } from "@/lib/email";

export const GMAIL_TOOLTIP =
  "This setting only applies to Google Workspace accounts, not personal Gmail accounts.";
export const AUTH_TYPE_TOOLTIP = "You must have a Google SSO auth type to require Google SSO.";
export const NO_VERIFIED_DOMAIN_TOOLTIP =
  "Verify your company's domain under Domains below before requiring Google SSO.";
export const INVITE_DISABLED_TOOLTIP = "Instruct other users to sign in with SSO to join the account.";

export function isGmail(email: string): boolean {
  return isGmailDomain(emailDomain(email));
}

/** Why the current user cannot turn Google SSO on, or null when they can. */
export function googleSsoBlockedReason(
  user: { email: string; authType: string },
  verifiedDomains: readonly string[],
): string | null {
  if (isGmail(user.email)) return GMAIL_TOOLTIP;
  if (user.authType !== "Google SSO") return AUTH_TYPE_TOOLTIP;
  if (verifiedDomains.length === 0) return NO_VERIFIED_DOMAIN_TOOLTIP;
  return null;
}

export type SsoChoice = "none" | "google" | "saml";
