/**
 * How Account Information words spend (README "Metering intake", "API keys"): shares of a
 * billing cycle's requests, a key's requests against its monthly limit, the limit typed in a
 * form, and the rows of the breakdown by key and by label. Pure, unit-tested.
 */
import type { Breakdown } from "./usage-series";

/** The largest monthly limit the API takes (api/keys/schemas.py `MonthlyLimit`). */
const MAX_MONTHLY_LIMIT = 1_000_000_000_000;

const count = (n: number) => n.toLocaleString("en-US");

/** A share of the cycle (0 to 1) as "42 %", "<1 %" for a sliver, "0 %" for none. */
export function shareText(share: number): string {
  if (share <= 0) return "0 %";
  if (share < 0.005) return "<1 %";
  return `${Math.round(share * 100)} %`;
}

/** "1,234 of 5,000 requests this cycle" ("· limit reached" once there), or "1,234 requests
 * this cycle · no monthly limit". */
export function limitText(used: number, limit: number | null | undefined): string {
  if (limit === null || limit === undefined) {
    return `${count(used)} ${used === 1 ? "request" : "requests"} this cycle · no monthly limit`;
  }
  const reached = used >= limit ? " · limit reached" : "";
  return `${count(used)} of ${count(limit)} requests this cycle${reached}`;
}

/** How full the limit is, 0 to 1 (a limit of 0 is full). */
export function limitFraction(used: number, limit: number): number {
  return limit <= 0 ? 1 : Math.min(1, used / limit);
}

/** A monthly limit as typed (digits, commas and spaces allowed; empty: no limit): the number or
 * null, or the message. */
export function parseLimit(text: string): { limit: number | null } | { error: string } {
  const digits = text.replace(/[\s,]/g, "");
  if (!digits) return { limit: null };
  if (!/^\d+$/.test(digits)) return { error: "Enter a whole number of requests" };
  const limit = Number(digits);
  if (limit > MAX_MONTHLY_LIMIT) return { error: `At most ${count(MAX_MONTHLY_LIMIT)} requests` };
  return { limit };
}

export interface BreakdownRow {
  name: string;
  requests: number;
  share: number;
  /** A row that sums what is not named (other values, requests without a key or the label). */
  rest?: boolean;
  note?: string;
}

/** The rows of the breakdown by API key: every key (rolled or expired ones noted), then the
 * requests metered before keys were recorded, if any. */
export function keyRows(breakdown: Breakdown, currentKeyId?: string): BreakdownRow[] {
  const rows: BreakdownRow[] = breakdown.byKey.map((k) => ({
    name: k.masked,
    requests: k.requests,
    share: k.share,
    note: k.expired ? "expired" : k.keyId === currentKeyId ? "current" : undefined,
  }));
  if (breakdown.unknownKey.requests) {
    rows.push({ name: "Key not recorded", rest: true, ...breakdown.unknownKey });
  }
  return rows;
}

/** The rows of the breakdown by the label: its top values, then the other values and the
 * requests without the label (each when there are any). */
export function labelRows(breakdown: Breakdown): BreakdownRow[] {
  const rows: BreakdownRow[] = breakdown.byLabel.map((v) => ({ name: v.value, ...v }));
  if (breakdown.otherValues.requests) {
    rows.push({ name: "Other values", rest: true, ...breakdown.otherValues });
  }
  if (breakdown.unlabelled.requests) {
    rows.push({ name: `Without ${breakdown.label ?? "a label"}`, rest: true, ...breakdown.unlabelled });
  }
  return rows;
}
