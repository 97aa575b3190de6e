/**
 * The audit log's reads (README "Audit log"): pages of events, the actors of the log, and
 * the CSV export, through the generated client (which carries the access token).
 */
import { useInfiniteQuery } from "@tanstack/react-query";

import { $api, fetchClient } from "@/api";
import { saveDownload } from "@/lib/download";

import type { AuditQuery } from "../lib/filters";

/**
 * GET /web/audit-events: the log matching `query`, newest first, a page of 50 at a time;
 * `fetchNextPage` loads the page after the last one shown (its `nextCursor`). Keyed under the
 * path like every generated-client query, so invalidating the path refreshes it.
 */
export function useAuditEvents(query: AuditQuery) {
  return useInfiniteQuery({
    queryKey: ["get", "/web/audit-events", { params: { query } }],
    queryFn: async ({ pageParam, signal }) => {
      const { data, error } = await fetchClient.GET("/web/audit-events", {
        params: { query: pageParam ? { ...query, cursor: pageParam } : query },
        signal,
      });
      if (error !== undefined || !data) throw error ?? new Error("No events received");
      return data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** GET /web/audit-events/actors: everyone who acted in the log (the actor filter's choices). */
export function useAuditActors() {
  return $api.useQuery("get", "/web/audit-events/actors");
}

/** The signed-in user's role (GET /web/session, already cached by the shell). */
export function useSessionRole() {
  return $api.useQuery("get", "/web/session", undefined, {
    select: (data) => data.session.user.role,
  });
}

/**
 * GET /web/audit-events/export: the log matching `query` as CSV, saved as a download under
 * the name the API gives (`audit-log-<date>.csv`).
 */
export async function downloadAuditCsv(query: AuditQuery): Promise<void> {
  const { data, error, response } = await fetchClient.GET("/web/audit-events/export", {
    params: { query },
    parseAs: "blob",
  });
  if (error !== undefined || !(data instanceof Blob)) throw error ?? new Error("No CSV received");
  const fallback = `audit-log-${new Date().toISOString().slice(0, 10)}.csv`;
  saveDownload(data, response, fallback);
}
