/**
 * The scopes an access token may hold (README "Automation") and who may give each: the roles
 * holding it in api/principal/roles.py's ROLE_PERMISSIONS, within its TOKEN_SCOPES. Nobody
 * gives a token a scope their role does not hold (the API answers 403 ScopeBeyondRole), so the
 * create dialog disables those with the reason. A module of its own beside ./permissions.ts:
 * only that dialog loads it (the first-load budget, README "Performance").
 */
import type { components } from "@/api/schema";

import type { Role } from "./permissions";

/** A scope an access token may hold: the contract's enum. */
export type TokenScope = components["schemas"]["NewAccessToken"]["scopes"][number];

const OWNERS: readonly Role[] = ["Owner"];
const OWNERS_AND_ADMINS: readonly Role[] = ["Owner", "Admin"];
const EVERYONE: readonly Role[] = ["Owner", "Admin", "Member"];

/** The roles holding each scope. A record: a scope the contract adds fails the typecheck
 * until it is here. */
const HOLDERS: Record<TokenScope, readonly Role[]> = {
  "account:read": EVERYONE,
  "account:write": OWNERS_AND_ADMINS,
  "users:read": EVERYONE,
  "users:write": OWNERS_AND_ADMINS,
  "owners:write": OWNERS,
  "sso:read": EVERYONE,
  "sso:write": OWNERS_AND_ADMINS,
  "billing:read": EVERYONE,
  "billing:write": OWNERS,
  "api_keys:read": EVERYONE,
  "api_keys:write": OWNERS_AND_ADMINS,
  "usage:read": EVERYONE,
  "usage:write": OWNERS_AND_ADMINS,
  "audit:read": OWNERS_AND_ADMINS,
};

/** Every scope a token may hold, sorted as the contract lists them. */
export const TOKEN_SCOPES = Object.keys(HOLDERS).sort() as TokenScope[];

/** Why `role` may not give a token `scope` (a tooltip), or null when it may. */
export function whyNotScope(role: Role, scope: TokenScope): string | null {
  const holders = HOLDERS[scope];
  if (holders.includes(role)) return null;
  return holders === OWNERS
    ? "Only Owners can give a token this scope."
    : "Only Owners and Admins can give a token this scope.";
}
