/**
 * The audit log's actions in plain words (README "Audit log"): what the Activity table
 * says and what the action filter offers, grouped as the console's pages are. Typed by the
 * contract's `AuditAction`, so a new action fails the type check until it has its words.
 */
import type { components } from "@/api/schema";

export type AuditAction = components["schemas"]["AuditAction"];

const WORDS: Readonly<Record<AuditAction, string>> = {
  "sign_in.succeeded": "Signed in",
  "sign_in.failed": "Failed to sign in",
  "account.renamed": "Renamed the account",
  "user.invited": "Invited a user",
  "user.joined": "Joined the account",
  "user.sso_linked": "Signed in with SSO for the first time",
  "user.edited": "Edited a user",
  "user.role_changed": "Changed a user's role",
  "user.deleted": "Deleted a user",
  "invitation.resent": "Resent an invitation",
  "invitation.revoked": "Revoked an invitation",
  "sso.changed": "Changed single sign-on",
  "sso.domain_added": "Added a domain",
  "sso.domain_verified": "Verified a domain",
  "sso.domain_removed": "Removed a domain",
  "sso.domain_lost": "Lost a verified domain",
  "sso.saml_connected": "Set up SAML single sign-on",
  "sso.saml_updated": "Updated the SAML connection",
  "sso.saml_removed": "Removed the SAML connection",
  "sso.saml_tested": "Tested the SAML connection",
  "sso.saml_linking_confirmed": "Let the SAML connection sign in existing users",
  "plan.units_changed": "Changed the plan",
  "plan.change_scheduled": "Scheduled a plan change",
  "plan.change_cancelled": "Cancelled a plan change",
  "payment_method.added": "Added a payment method",
  "payment_method.removed": "Removed the payment method",
  "invoice.paid": "Paid an invoice",
  "api_key.revealed": "Revealed the API key",
  "api_key.copied": "Copied the API key",
  "api_key.rolled": "Rolled the API key",
  "api_key.expired": "Expired an API key",
  "api_key.limit_changed": "Changed an API key's monthly limit",
  "usage_alerts.changed": "Changed the usage alerts",
  "scim_token.created": "Generated a SCIM token",
  "scim_token.revoked": "Revoked a SCIM token",
  "access_token.created": "Created an access token",
  "access_token.revoked": "Revoked an access token",
  "access_tokens.changed": "Turned access tokens on or off",
  "user.provisioned": "Provisioned a user",
  "directory_group.created": "Added a directory group",
  "directory_group.renamed": "Renamed a directory group",
  "directory_group.deleted": "Removed a directory group",
  "directory_group.role_changed": "Changed the role a directory group gives",
  "user.deactivated": "Deactivated a user",
  "user.reactivated": "Reactivated a user",
  "user.signed_out": "Signed a user out everywhere",
  "usage_limit.changed": "Changed what happens at the allowance",
  "two_step.enabled": "Turned on two-step sign-in",
  "two_step.disabled": "Turned off two-step sign-in",
  "two_step.recovery_codes_regenerated": "Made new recovery codes",
  "two_step.recovery_code_used": "Signed in with a recovery code",
  "two_step.reset": "Reset a user's two-step sign-in",
  "two_step.requirement_changed": "Changed the two-step sign-in requirement",
  "passkey.added": "Added a passkey",
  "passkey.removed": "Removed a passkey",
};

/** "Invited a user" for `user.invited`. */
export function actionWords(action: AuditAction): string {
  return WORDS[action];
}

/** Whether `value` (e.g. from the URL) is an action of the contract. */
export function isAuditAction(value: string): value is AuditAction {
  return Object.hasOwn(WORDS, value);
}

/** The action filter's option groups, as the console's pages group them. */
export const ACTION_GROUPS: readonly { label: string; actions: readonly AuditAction[] }[] = [
  { label: "Sign-in", actions: ["sign_in.succeeded", "sign_in.failed"] },
  { label: "Account", actions: ["account.renamed"] },
  {
    label: "Users and invitations",
    actions: [
      "user.invited",
      "user.joined",
      "user.sso_linked",
      "user.edited",
      "user.role_changed",
      "user.deleted",
      "user.signed_out",
      "invitation.resent",
      "invitation.revoked",
    ],
  },
  {
    label: "Directory sync",
    actions: [
      "scim_token.created",
      "scim_token.revoked",
      "user.provisioned",
      "user.deactivated",
      "user.reactivated",
      "directory_group.created",
      "directory_group.renamed",
      "directory_group.deleted",
      "directory_group.role_changed",
    ],
  },
  {
    label: "Single sign-on",
    actions: [
      "sso.changed",
      "sso.domain_added",
      "sso.domain_verified",
      "sso.domain_removed",
      "sso.domain_lost",
      "sso.saml_connected",
      "sso.saml_updated",
      "sso.saml_removed",
      "sso.saml_tested",
      "sso.saml_linking_confirmed",
    ],
  },
  {
    label: "Billing",
    actions: [
      "plan.units_changed",
      "plan.change_scheduled",
      "plan.change_cancelled",
      "payment_method.added",
      "payment_method.removed",
      "invoice.paid",
    ],
  },
  {
    label: "API keys and usage",
    actions: [
      "api_key.revealed",
      "api_key.copied",
      "api_key.rolled",
      "api_key.expired",
      "api_key.limit_changed",
      "usage_alerts.changed",
      "usage_limit.changed",
    ],
  },
  {
    label: "Access tokens",
    actions: ["access_token.created", "access_token.revoked", "access_tokens.changed"],
  },
  {
    label: "Two-step sign-in",
    actions: [
      "two_step.enabled",
      "two_step.disabled",
      "two_step.recovery_codes_regenerated",
      "two_step.recovery_code_used",
      "two_step.reset",
      "two_step.requirement_changed",
    ],
  },
  {
    label: "Passkeys",
    actions: ["passkey.added", "passkey.removed"],
  },
];

/** Every action of the contract. */
export const ALL_ACTIONS: readonly AuditAction[] = Object.keys(WORDS) as AuditAction[];
