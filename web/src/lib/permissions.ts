/**
 * What each role may change (README "Roles and invitations"), in one place for the whole SPA:
 * it mirrors the API's permission table (api/principal/roles.py; each operation's `x-permission` in
 * openapi.json), so a control is disabled with its reason before the API would refuse.
 * Every role reads every page and may reveal and copy the API key.
 *
 * `permissionsFor(role)` is pure; `usePermissions()` (api/use-permissions.ts) binds it to the
 * signed-in user's role.
 */
import type { components } from "@/api/schema";

export type Role = components["schemas"]["Role"];

const OWNERS: readonly Role[] = ["Owner"];
const OWNERS_AND_ADMINS: readonly Role[] = ["Owner", "Admin"];

/** Who may make each change, with the tooltip a disabled control shows to everyone else. */
const CHANGES = {
  /** The plan and its scheduled change, the card, paying an invoice past due. */
  changeBilling: { allowed: OWNERS, reason: "Only Owners can change billing." },
  renameAccount: { allowed: OWNERS_AND_ADMINS, reason: "Only Owners and Admins can rename the account." },
  /** Roll key, Expire now and a key's monthly limit (revealing and copying are for everyone). */
  manageApiKeys: { allowed: OWNERS_AND_ADMINS, reason: "Only Owners and Admins can change API keys." },
  changeUsageAlerts: { allowed: OWNERS_AND_ADMINS, reason: "Only Owners and Admins can change usage alerts." },
  /** Keep running or stop at the allowance (a key's monthly limit is `manageApiKeys`). */
  changeUsageLimits: { allowed: OWNERS_AND_ADMINS, reason: "Only Owners and Admins can change usage limits." },
  /** Invite, edit, delete; Resend and Revoke an invitation. */
  manageUsers: { allowed: OWNERS_AND_ADMINS, reason: "Only Owners and Admins can manage users." },
  /** The single sign-on choice (Google) and the domains. */
  changeSso: { allowed: OWNERS_AND_ADMINS, reason: "Only Owners and Admins can change single sign-on." },
  /**
   * Connecting, replacing, removing, requiring and confirming the SAML connection: its identity
   * provider can sign in as anyone of the account (README "Security model", "Who someone is").
   */
  changeSaml: { allowed: OWNERS, reason: "Only Owners can set up, change or require SAML single sign-on." },
  /** Whether the account requires two-step sign-in (README "Two-step sign-in"). */
  requireTwoStep: { allowed: OWNERS, reason: "Only Owners can require two-step sign-in." },
  /** Whether the account's access tokens work at all (README "Automation"). */
  switchAccessTokens: { allowed: OWNERS, reason: "Only Owners can turn access tokens on or off." },
  /** Keeping the access tokens of a member being removed (README "Automation"). */
  keepAccessTokens: { allowed: OWNERS, reason: "Only Owners can keep a removed member's access tokens." },
} as const satisfies Record<string, { allowed: readonly Role[]; reason: string }>;

export type Change = keyof typeof CHANGES;

/** Who may read the account's audit log: the Activity item and page (the API refuses others). */
export function canReadActivity(role: Role | undefined): boolean {
  return role !== undefined && OWNERS_AND_ADMINS.includes(role);
}

/**
 * Who may see, create and revoke the account's access tokens (README "Automation"): the Access
 * tokens item and page, and the tokens User Management lists before removing a member.
 */
export function canManageAccessTokens(role: Role | undefined): boolean {
  return role !== undefined && OWNERS_AND_ADMINS.includes(role);
}

export const OWNER_CHANGES_OWNERS = "Only Owners can change an Owner.";

export interface Permissions {
  role: Role;
  /** Why this role may not make `change` (a tooltip), or null when it may. */
  whyNot: (change: Change) => string | null;
  /**
   * Why this role may not edit, delete, resend to or revoke a user whose role is `target`, or
   * null when it may: Owners manage everyone, Admins everyone but Owners, Members no one.
   */
  whyNotManage: (target: Role) => string | null;
  /** The roles this role may give in an invitation or a role change (Owner only by Owners). */
  grantable: readonly Role[];
}

export function permissionsFor(role: Role): Permissions {
  const whyNot = (change: Change) =>
    CHANGES[change].allowed.includes(role) ? null : CHANGES[change].reason;
  return {
    role,
    whyNot,
    whyNotManage: (target) =>
      whyNot("manageUsers") ?? (target === "Owner" && role !== "Owner" ? OWNER_CHANGES_OWNERS : null),
    grantable: role === "Owner" ? ["Owner", "Admin", "Member"] : role === "Admin" ? ["Admin", "Member"] : [],
  };
}
