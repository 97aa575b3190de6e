/**
 * The warning at the top of User Management while the SAML identity provider's signing
 * certificate expires within 30 days, or has expired (README "SAML single sign-on").
 */
import type { components } from "@/api/schema";
import { dayLabel } from "@/lib/dates";

type SamlConnection = components["schemas"]["SamlConnection"];

/** The warning shown while the identity provider's signing certificate expires within 30 days. */
export function certificateWarning(connection: SamlConnection, now: Date = new Date()): string | null {
  if (!connection.certificateExpiresSoon) return null;
  const expired = new Date(connection.certificateExpiresAt).getTime() <= now.getTime();
  const when = dayLabel(connection.certificateExpiresAt);
  return expired
    ? `The signing certificate of your SAML identity provider expired on ${when}: sign-in with SSO fails until you add a new certificate at the identity provider and update the metadata under Security.`
    : `The signing certificate of your SAML identity provider expires on ${when}. Add a new certificate at the identity provider and update the metadata under Security before then, or sign-in with SSO will stop.`;
}
