/**
 * How User Management shows roles and invitations (README "Roles and invitations"): one line per role in the role
 * choice, and the invite date of a Pending or Expired invitation.
 */
import type { components } from "@/api/schema";
import type { Role } from "@/lib/permissions";

export type AccountUser = components["schemas"]["AccountUser"];

/** What each role may do, one line each (the invite and edit dialogs' role choice). */
export const ROLE_DESCRIPTIONS: Readonly<Record<Role, string>> = {
  Owner: "Everything, including billing and other Owners.",
  Admin: "Users, single sign-on, the account name and API keys; not billing.",
  Member: "Sees everything and copies the API key; changes nothing.",
};

/**
 * Whether `user` waits for a first sign-in through the account's single sign-on (the
 * directory provisioned them: README "Directory sync (SCIM)"): Pending with no invitation to
 * expire, so nothing to resend.
 */
export function awaitsSsoSignIn(user: Pick<AccountUser, "status" | "invitationExpiresAt">): boolean {
  return user.status === "Pending" && !user.invitationExpiresAt;
}

/**
 * "Invited Nov 24" for a Pending or Expired invitation ("Provisioned Nov 24" for a user who
 * waits for a single sign-on; in UTC, as the console's other dates; with the year when it is
 * not `now`'s), null for an Active user.
 */
export function invitationLabel(
  user: Pick<AccountUser, "status" | "invitedAt" | "invitationExpiresAt">,
  now: Date = new Date(),
): string | null {
  if (user.status === "Active" || !user.invitedAt) return null;
  const invited = new Date(user.invitedAt);
  const verb = awaitsSsoSignIn(user) ? "Provisioned" : "Invited";
  const date = invited.toLocaleDateString("en-US", {
    timeZone: "UTC",
    month: "short",
    day: "numeric",
    ...(invited.getUTCFullYear() === now.getUTCFullYear() ? {} : { year: "numeric" }),
  });
  return `${verb} ${date}`;
}
