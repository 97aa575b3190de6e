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

/** The last day (UTC, "YYYY-MM-DD") a token that expires at `expiresAt`, that day's end, works. */
export function lastDay(expiresAt: string): string {
  return new Date(Date.parse(expiresAt) - 1).toISOString().slice(0, 10);
}
