/** How Account Configuration words an API key's use and remaining time (README "API keys"). */

/** "Last used 5 minutes ago" (to the minute: the intake writes it at most once a minute),
 * "Last used just now", or "Never used". */
export function lastUsedText(lastUsedAt: string | null | undefined, nowMs: number): string {
  if (!lastUsedAt) return "Never used";
  const minutes = Math.floor((nowMs - Date.parse(lastUsedAt)) / 60_000);
  if (minutes < 1) return "Last used just now";
  if (minutes < 60) return `Last used ${minutes} ${minutes === 1 ? "minute" : "minutes"} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `Last used ${hours} ${hours === 1 ? "hour" : "hours"} ago`;
  return `Last used ${Math.floor(hours / 24)} days ago`;
}

/** Time left until `endsAt`: "6d 23h", "23h 59m", "59m 59s", "0s" once past. */
export function countdown(endsAt: string, nowMs: number): string {
  const left = Math.max(0, Math.floor((Date.parse(endsAt) - nowMs) / 1000));
  const d = Math.floor(left / 86_400);
  const h = Math.floor((left % 86_400) / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}
