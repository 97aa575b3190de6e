/**
 * The signed-in person's sessions (README "Sessions"; docs/users/sessions.md): where they are
 * signed in (GET /web/sessions), signing one out, and signing out every other. Each change
 * refetches the list.
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";

const KEY = ["get", "/web/sessions"] as const;

function useRefetchSessions() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** The live sessions, the latest active first; this browser's has `current`. */
export function useSessions() {
  return $api.useQuery("get", "/web/sessions");
}

/**
 * DELETE /web/sessions/{session_id}: its next request is refused (401 SessionEnded). A 404
 * (SessionNotFound: it had ended already) refetches the list too.
 */
export function useEndSession() {
  const refetch = useRefetchSessions();
  return $api.useMutation("delete", "/web/sessions/{session_id}", { onSettled: refetch });
}

/** POST /web/session/sign-out-others: every session but this browser's ends; `{ ended }` says how many. */
export function useEndOtherSessions() {
  const refetch = useRefetchSessions();
  return $api.useMutation("post", "/web/session/sign-out-others", { onSettled: refetch });
}
