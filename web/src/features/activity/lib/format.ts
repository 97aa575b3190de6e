/** How the Activity table writes an event's time and changes (README "Audit log"). */
import type { components } from "@/api/schema";

type FieldChange = components["schemas"]["FieldChange"];

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });

/** The day in the reader's locale and time zone: "Nov 24, 2026". */
export function localDate(iso: string): string {
  return DATE.format(new Date(iso));
}

/** The time of day in the reader's locale and time zone: "8:04:12 PM". */
export function localTimeOfDay(iso: string): string {
  return TIME.format(new Date(iso));
}

/** The same instant in UTC, to the second: "2026-11-24 20:04:12 UTC". */
export function utcTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A value as the table shows it: text as it is, nothing as "—", anything else as JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value === "" ? '""' : value;
  return JSON.stringify(value);
}

/**
 * "units: 2 → 5"; a field name's underscores read as spaces ("first name: Ada → Ida"). A value
 * set where there was none (a sign-in's method, an invitee's email) reads as "method: password".
 */
export function changeLine(field: string, change: FieldChange): string {
  const name = field.replaceAll("_", " ");
  if (change.from === null || change.from === undefined) return `${name}: ${shown(change.to)}`;
  return `${name}: ${shown(change.from)} → ${shown(change.to)}`;
}
