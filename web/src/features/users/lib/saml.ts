/**
 * SAML single sign-on on User Management (README "SAML single sign-on"): when the SAML option
 * may be chosen and why not, how the certificate's expiry reads, whether the connection links
 * existing users (README "Security model", "Who someone is"), what to do with the console's
 * signing certificate, and the short steps of the identity providers customers use most.
 */
import type { components } from "@/api/schema";
import { dayLabel } from "@/lib/dates";

export type SamlConnection = components["schemas"]["SamlConnection"];
// The page's own warning, in a module of its own: User Management shows it above the list, and
// loads the rest of this module only with its Security section.
export { certificateWarning } from "./certificate-warning";
export type SamlTest = components["schemas"]["SamlTest"];
export type ServiceProvider = components["schemas"]["ServiceProvider"];

export const SAML_NO_VERIFIED_DOMAIN_TOOLTIP =
  "Verify your company's domain under Domains below before setting up SAML single sign-on.";
/** The sign-in type (`user.authType`) of people who sign in through the account's connection. */
export const SAML_AUTH_TYPE = "SAML SSO";
/** The mirror of SPEC 5's 'You must have a Google SSO auth type to require Google SSO.' */
export const SAML_AUTH_TYPE_TOOLTIP = "You must have a SAML SSO auth type to require SAML SSO.";

/**
 * Why the current user cannot choose the SAML option, or null when they can: it needs a
 * verified domain (whose people it signs in); once the connection exists, choosing it requires
 * it, which only a user who signed in through it may do.
 */
export function samlBlockedReason(
  user: { authType: string },
  verifiedDomains: readonly string[],
  connected: boolean,
): string | null {
  if (verifiedDomains.length === 0) return SAML_NO_VERIFIED_DOMAIN_TOOLTIP;
  if (connected && user.authType !== SAML_AUTH_TYPE) return SAML_AUTH_TYPE_TOOLTIP;
  return null;
}

/** What the last test sign-in found, in one sentence. */
export function testSummary(test: SamlTest): string {
  if (test.problem) return test.problem;
  const name = [test.firstName, test.lastName].filter(Boolean).join(" ");
  return `Signed in as ${test.email ?? "?"}${name ? ` (${name})` : ""}: the connection works.`;
}

export interface ProviderSteps {
  name: string;
  steps: readonly string[];
}

/** Where each value goes at the identity providers customers use most. */
export function providerSteps(sp: ServiceProvider): readonly ProviderSteps[] {
  const attributes = `${sp.emailAttribute} (user.email), ${sp.firstNameAttribute} (user.firstName), ${sp.lastNameAttribute} (user.lastName)`;
  return [
    {
      name: "Okta",
      steps: [
        "Applications → Create App Integration → SAML 2.0.",
        `Single sign-on URL: the ACS URL. Audience URI (SP Entity ID): the Entity ID.`,
        "Name ID format: EmailAddress; Application username: Email.",
        `Attribute Statements: ${attributes}.`,
        "Assign the people or groups, then copy the Metadata URL from the Sign On tab.",
      ],
    },
    {
      name: "Microsoft Entra ID",
      steps: [
        "Enterprise applications → New application → Create your own application (non-gallery).",
        "Single sign-on → SAML: Identifier (Entity ID): the Entity ID; Reply URL: the ACS URL.",
        "Attributes & Claims: Unique User Identifier user.mail (Email address format).",
        `Add claims named ${sp.emailAttribute} (user.mail), ${sp.firstNameAttribute} (user.givenname) and ${sp.lastNameAttribute} (user.surname), with no namespace.`,
        "Assign users and groups, then copy the App Federation Metadata Url.",
      ],
    },
    {
      name: "Google Workspace",
      steps: [
        "Admin console → Apps → Web and mobile apps → Add custom SAML app.",
        "Download the IdP metadata (Option 1) and upload it here.",
        "ACS URL and Entity ID: the values above; Name ID format EMAIL, Name ID Basic Information › Primary email.",
        `Attribute mapping: Primary email → ${sp.emailAttribute}, First name → ${sp.firstNameAttribute}, Last name → ${sp.lastNameAttribute}.`,
        "Turn the app on for the organisational units that sign in.",
      ],
    },
  ];
}

/** What the connection does with people who already have a user in the account. */
export function linkingSummary(connection: SamlConnection): string {
  if (!connection.linkingConfirmedAt) {
    return "Existing users cannot sign in through it yet: it signs in only people new to this account, as Members, until an Owner confirms it.";
  }
  const by = connection.linkingConfirmedBy ? ` by ${connection.linkingConfirmedBy}` : "";
  return `Existing users link at their first sign-in (confirmed${by} on ${dayLabel(connection.linkingConfirmedAt)}).`;
}

/** Why an unconfirmed connection links nobody yet, and what confirming means. */
export const LINKING_UNCONFIRMED_TEXT =
  "An Admin connected this identity provider before connecting one became an Owner's. Until an Owner confirms it, someone who already has a user in this account cannot sign in through it: whoever runs the identity provider could otherwise sign in as them, Owners included.";

/** What confirming the connection allows, for the Owner to weigh. */
export function confirmLinkingText(connection: SamlConnection): string {
  const domains = connection.domains.length ? connection.domains.join(", ") : "your verified domains";
  return `Whoever runs ${connection.idpEntityId} will be able to sign in as any user of this account at ${domains}, Owners included: the first time someone signs in through it, their existing user is linked to it. Confirm only if your company runs this identity provider.`;
}

/** What to do at the identity provider with the console's signing certificate. */
export const SIGNING_CERTIFICATE_NOTE =
  "Your identity provider asks for signed sign-in requests, so the console signs them (RSA-SHA256). Give your identity provider this certificate to check them: in Keycloak, the client's Keys tab (Client signature required, import this certificate); in Okta, the app's SAML settings (Signature Certificate). Amazon Cognito issues a new one every year: when this one changes, update it at the identity provider.";
