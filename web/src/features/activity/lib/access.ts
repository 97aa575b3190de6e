/** Who may read the account's audit log (issue 15 "Roles": Owners and Admins). */
import type { components } from "@/api/schema";

type Role = components["schemas"]["Role"];

/** True for Owners and Admins: they see the Activity item and page; the API refuses others. */
export function canReadActivity(role: Role | undefined): boolean {
  return role === "Owner" || role === "Admin";
}
