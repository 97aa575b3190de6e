/**
 * How the Domains panel shows a domain (README "Verified domains"): its state as a badge with a sentence, and
 * when it was last checked.
 */
import type { components } from "@/api/schema";

export type SsoDomain = components["schemas"]["SsoDomain"];
export type DomainState = SsoDomain["state"];

/** What each state means for auto-join, shown under the domain. */
export const STATE_HINTS: Readonly<Record<DomainState, string>> = {
  Pending: "Publish the TXT record below, then press Verify.",
  Verified: "While Google SSO is required, people at this domain can join by signing in with Google.",
  Failed: "The last check did not verify it: the reason is below.",
  Lost: "The record disappeared: people at this domain can no longer join until it is verified again.",
};

/** "Never checked", "Checked just now", "Checked 5 minutes ago", "Checked Nov 23, 2026, 14:05 UTC". */
export function lastCheckLabel(checkedAt: string | null, now: Date = new Date()): string {
  if (!checkedAt) return "Never checked";
  const when = new Date(checkedAt);
  const minutes = Math.floor((now.getTime() - when.getTime()) / 60_000);
  if (minutes < 1) return "Checked just now";
  if (minutes < 60) return `Checked ${minutes} minute${minutes === 1 ? "" : "s"} ago`;
  const date = when.toLocaleString("en-US", {
    timeZone: "UTC",
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  return `Checked ${date} UTC`;
}

/** Whether any domain is verified: Google SSO may be required only then. */
export function hasVerifiedDomain(domains: readonly { state: DomainState }[]): boolean {
  return domains.some((d) => d.state === "Verified");
}
