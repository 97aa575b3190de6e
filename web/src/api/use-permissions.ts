import { useMemo } from "react";

import { type Permissions, permissionsFor } from "@/lib/permissions";

import { $api } from "./client";

/**
 * The signed-in user's permissions (lib/permissions.ts), from the session the route guard has
 * loaded (GET /web/session `session.user.role`). It only reads that cached query (the guard
 * fetches it, and every change refetches it), and falls back to the most limited role,
 * Member, while there is none.
 */
export function usePermissions(): Permissions {
  const { data: role } = $api.useQuery("get", "/web/session", undefined, {
    select: (data) => data.session.user.role,
    enabled: false,
    meta: { skipAuthRedirect: true },
  });
  return useMemo(() => permissionsFor(role ?? "Member"), [role]);
}
