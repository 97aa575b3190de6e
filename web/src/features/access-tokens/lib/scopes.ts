/**
 * The scope picker's areas (README "Automation"; docs/integrators/access-tokens.md "Scopes"):
 * each token scope under the part of the console it opens, as a read and a write choice, with
 * what it lets a token do, shortened from the role table (api/principal/roles.py DESCRIPTIONS).
 */
import type { TokenScope } from "@/lib/token-scopes";

export interface ScopeChoice {
  scope: TokenScope;
  /** What the scope lets a token do. */
  text: string;
}

export interface ScopeArea {
  name: string;
  read?: ScopeChoice;
  write?: ScopeChoice;
}

export const SCOPE_AREAS: readonly ScopeArea[] = [
  {
    name: "Account",
    read: { scope: "account:read", text: "Read Account Information" },
    write: { scope: "account:write", text: "Rename the account" },
  },
  {
    name: "Users",
    read: { scope: "users:read", text: "Read User Management" },
    write: {
      scope: "users:write",
      text: "Invite, edit and delete Admins and Members",
    },
  },
  {
    name: "Owners",
    write: { scope: "owners:write", text: "Make, change and remove Owners" },
  },
  {
    name: "Single sign-on",
    read: { scope: "sso:read", text: "Read the single sign-on settings and domains" },
    write: { scope: "sso:write", text: "Add, verify and remove domains; test SAML" },
  },
  {
    name: "Billing",
    read: { scope: "billing:read", text: "Read Billing & Subscription and the invoices" },
    write: { scope: "billing:write", text: "Change the plan and the card; pay an invoice" },
  },
  {
    name: "API keys",
    read: { scope: "api_keys:read", text: "Reveal and copy the API key" },
    write: { scope: "api_keys:write", text: "Roll and expire API keys; set their limits" },
  },
  {
    name: "Usage",
    read: { scope: "usage:read", text: "Read usage, alerts and limits; export usage" },
    write: { scope: "usage:write", text: "Change usage alerts and limits" },
  },
  {
    name: "Activity",
    read: { scope: "audit:read", text: "Read and export the audit log" },
  },
];

/** `scopes` in the picker's order (area by area, read before write), each once. */
export function inPickerOrder(scopes: Iterable<string>): TokenScope[] {
  const chosen = new Set(scopes);
  return SCOPE_AREAS.flatMap((area) => [area.read, area.write])
    .filter((choice): choice is ScopeChoice => choice !== undefined && chosen.has(choice.scope))
    .map((choice) => choice.scope);
}
