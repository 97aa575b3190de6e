/** How the console shows a day: en-US, in UTC like the billing cycles, whatever the browser. */

/** "Dec 1, 2026" (UTC). */
export function dayLabel(iso: string): string {
  return new Date(iso).toLocaleDateString("en-US", {
    timeZone: "UTC",
    year: "numeric",
    month: "short",
    day: "numeric",
  });
}
