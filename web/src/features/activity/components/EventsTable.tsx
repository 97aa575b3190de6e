/**
 * The events of the log, newest first (README "Audit log"): when (in the reader's locale,
 * UTC in the tooltip), who, what in plain words and on what, the changed fields as
 * "field: before → after", and the IP address it came from.
 */
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";

import { actionWords } from "../lib/actions";
import { changeLine, localDate, localTimeOfDay, utcTime } from "../lib/format";

import styles from "./activity.module.css";

type AuditEvent = components["schemas"]["AuditEvent"];

export function EventsTable({ events }: { events: AuditEvent[] }) {
  return (
    <table className={`${page.table} ${styles.table}`} aria-label="Activity">
      <thead>
        <tr>
          <th scope="col" className={styles.timeColumn}>
            Time
          </th>
          <th scope="col" className={styles.whoColumn}>
            Who
          </th>
          <th scope="col" className={styles.whatColumn}>
            What
          </th>
          <th scope="col">Changes</th>
          <th scope="col" className={styles.addressColumn}>
            IP address
          </th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => {
          const changes = Object.entries(event.changes);
          return (
            <tr key={event.id}>
              <td>
                <time dateTime={event.occurredAt} title={utcTime(event.occurredAt)}>
                  <span className={styles.primary}>{localDate(event.occurredAt)}</span>
                  <span className={styles.secondary}>{localTimeOfDay(event.occurredAt)}</span>
                </time>
              </td>
              <td>
                <span className={styles.primary}>{event.actor.name || "Unknown user"}</span>
                <span className={styles.secondary}>{event.actor.email}</span>
              </td>
              <td>
                <span className={styles.primary}>{actionWords(event.action)}</span>
                {event.target ? <span className={styles.secondary}>{event.target.label}</span> : null}
              </td>
              <td>
                {changes.length ? (
                  <ul className={styles.changes}>
                    {changes.map(([field, change]) => (
                      <li key={field}>{changeLine(field, change)}</li>
                    ))}
                  </ul>
                ) : (
                  <span className={page.muted}>—</span>
                )}
              </td>
              <td className={styles.address}>{event.clientAddress || "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
