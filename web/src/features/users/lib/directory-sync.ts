/**
 * What Directory sync (README "Directory sync (SCIM)") allows before the API would refuse it:
 * a new SCIM token while the account holds fewer than its most live tokens (a token whose
 * creator was removed works no more, and does not count), and a group's role changed to or
 * from Owner by Owners only.
 */
import type { components } from "@/api/schema";
import type { Role } from "@/lib/permissions";

type Token = components["schemas"]["ScimTokenView"];

export const OWNER_GROUP_REASON = "Only Owners can map a group to Owner or change a group mapped to Owner.";

/** Why Generate token is disabled (the account holds `maxTokens` live tokens), or null. */
export function tokenLimitReason(tokens: readonly Pick<Token, "createdBy">[], maxTokens: number): string | null {
  const live = tokens.filter((token) => token.createdBy !== null).length;
  return live >= maxTokens
    ? `An account can have at most ${maxTokens} SCIM tokens. Revoke one you no longer use first.`
    : null;
}

/** Why a group's role select is disabled for this user (a group mapped to Owner, and they are no Owner), or null. */
export function groupRoleReason(current: Role | null, mayGrantOwner: boolean): string | null {
  return current === "Owner" && !mayGrantOwner ? OWNER_GROUP_REASON : null;
}
