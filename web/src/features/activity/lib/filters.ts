/**
 * The Activity page's filters (README "Audit log"): kept in the URL's query so a filtered
 * view can be shared (`/activity?actor=<user id>&action=user.invited&from=2026-11-01&to=2026-11-24`),
 * and turned into the parameters of GET /web/audit-events and its export.
 *
 * `from` and `to` are days of the reader's calendar, both included; the API takes instants,
 * `from` included and `to` excluded, so `to` becomes the start of the next local day (a day
 * across a daylight-saving change is 23 or 25 hours long, as the reader lives it).
 */
import type { paths } from "@/api/schema";

import { type AuditAction, isAuditAction } from "./actions";

export interface ActivityFilters {
  /** The acting user's id. */
  actor: string | null;
  action: AuditAction | null;
  /** "YYYY-MM-DD", a local day, included. */
  from: string | null;
  /** "YYYY-MM-DD", a local day, included. */
  to: string | null;
}

export type AuditQuery = NonNullable<paths["/web/audit-events/export"]["get"]["parameters"]["query"]>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The local midnight starting `day` ("YYYY-MM-DD") plus `days`, or null for no such day. */
function localDayStart(day: string, days = 0): Date | null {
  const [, year, month, date] = DAY.exec(day) ?? [];
  if (!year || !month || !date) return null;
  const start = new Date(Number(year), Number(month) - 1, Number(date));
  if (start.getMonth() !== Number(month) - 1 || start.getDate() !== Number(date)) return null;
  start.setDate(start.getDate() + days);
  return start;
}

/** The filters a URL query holds; anything malformed there counts as no filter. */
export function filtersFromSearch(search: URLSearchParams): ActivityFilters {
  const actor = search.get("actor");
  const action = search.get("action");
  const day = (name: string) => {
    const value = search.get(name);
    return value && localDayStart(value) ? value : null;
  };
  return {
    actor: actor && UUID.test(actor) ? actor.toLowerCase() : null,
    action: action && isAuditAction(action) ? action : null,
    from: day("from"),
    to: day("to"),
  };
}

/** The URL query of `filters` (only the filters that are set). */
export function searchOfFilters(filters: ActivityFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const name of ["actor", "action", "from", "to"] as const) {
    const value = filters[name];
    if (value) search.set(name, value);
  }
  return search;
}

export function hasFilters(filters: ActivityFilters): boolean {
  return Object.values(filters).some((value) => value !== null);
}

/** The query parameters of GET /web/audit-events (and /export) for `filters`. */
export function apiQuery(filters: ActivityFilters): AuditQuery {
  const query: AuditQuery = {};
  if (filters.actor) query.actorId = filters.actor;
  if (filters.action) query.action = [filters.action];
  const from = filters.from ? localDayStart(filters.from) : null;
  const to = filters.to ? localDayStart(filters.to, 1) : null;
  if (from) query.from = from.toISOString();
  if (to) query.to = to.toISOString();
  return query;
}
