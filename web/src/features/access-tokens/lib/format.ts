/** How the Access tokens list words a token (README "Automation"). */

/**
 * The creator as the API keeps it, "Ada Lovelace <ada@acme-robotics.dev>" (name and email when
 * the token was made), split into the name to show and the email (empty when there is none).
 */
export function creator(createdBy: string): { name: string; email: string } {
  const match = /^(.*?)\s*<([^>]*)>$/.exec(createdBy.trim());
  if (!match) return { name: createdBy.trim(), email: "" };
  const name = (match[1] ?? "").trim();
  const email = match[2] ?? "";
  return { name: name || email, email };
}

/**
 * When something happened, relative to `nowMs` while recent: "just now", "5 minutes ago",
 * "3 hours ago", "2 days ago"; an older day as "Nov 2, 2026" (the reader's time zone).
 */
export function whenText(iso: string, nowMs: number): string {
  const minutes = Math.floor((nowMs - Date.parse(iso)) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} ${minutes === 1 ? "minute" : "minutes"} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} ${hours === 1 ? "hour" : "hours"} ago`;
  const days = Math.floor(hours / 24);
  if (days < 7) return `${days} ${days === 1 ? "day" : "days"} ago`;
  return new Date(iso).toLocaleDateString("en-US", { year: "numeric", month: "short", day: "numeric" });
}

/** The exact time, for a tooltip: "Nov 27, 2026, 3:04 PM" (the reader's time zone). */
export function exactTime(iso: string): string {
  return new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" });
}

/** The last day (UTC, "YYYY-MM-DD") a token that expires at `expiresAt`, that day's end, works. */
export function lastDay(expiresAt: string): string {
  return new Date(Date.parse(expiresAt) - 1).toISOString().slice(0, 10);
}
