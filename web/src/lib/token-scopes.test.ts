import { describe, expect, it } from "vitest";

import type { Role } from "./permissions";
import { TOKEN_SCOPES, whyNotScope } from "./token-scopes";

describe("whyNotScope (the token scopes a role holds, as api/principal/roles.py)", () => {
  const refused = (role: Role) =>
    Object.fromEntries(
      TOKEN_SCOPES.flatMap((scope) => {
        const reason = whyNotScope(role, scope);
        return reason ? [[scope, reason]] : [];
      }),
    );

  it("lets an Owner give every scope", () => {
    expect(TOKEN_SCOPES).toHaveLength(14);
    expect(refused("Owner")).toEqual({});
  });

  it("keeps billing changes and Owners from an Admin's tokens", () => {
    expect(refused("Admin")).toEqual({
      "billing:write": "Only Owners can give a token this scope.",
      "owners:write": "Only Owners can give a token this scope.",
    });
  });

  it("leaves a Member the read scopes of every role", () => {
    expect(TOKEN_SCOPES.filter((scope) => whyNotScope("Member", scope) === null)).toEqual([
      "account:read",
      "api_keys:read",
      "billing:read",
      "sso:read",
      "usage:read",
      "users:read",
    ]);
  });
});
