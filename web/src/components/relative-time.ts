/**
 * How the console's lists say when something happened (access tokens' last use, sessions):
 * "5 minutes ago" while recent, kept current by `useNow`, the exact time on hover. The clock
 * and the words are one module, so the pages that share them load one small chunk for both
 * (the first-load budget, bench/bundle/measure.mjs).
 */
import { useEffect, useState } from "react";

/** The current time in epoch ms, updated every `everyMs` (countdowns, "5 minutes ago"). */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
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
