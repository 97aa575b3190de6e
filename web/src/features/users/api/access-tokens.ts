/**
 * The access tokens a member made (README "Automation"), for the Delete User dialog: a module of
 * its own, loaded with that dialog rather than the page (the first-load budget).
 */
import { $api } from "@/api";

/**
 * The active access tokens `userId` made (GET /web/access-tokens, Owners and Admins), which
 * removing them revokes (README "Automation"); fetched only while `enabled` (the signed-in user
 * may see tokens).
 */
export function useActiveTokensOf(userId: string, enabled: boolean) {
  return $api.useQuery("get", "/web/access-tokens", undefined, {
    enabled,
    select: (data) => data.tokens.filter((t) => t.status === "active" && t.createdByUserId === userId),
  });
}
