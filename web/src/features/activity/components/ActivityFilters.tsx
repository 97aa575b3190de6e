/**
 * The Activity page's filters (issue 15 "Audit log"): who (the actors of the log), which
 * action, and a range of days in the reader's calendar. Each change replaces the URL's query
 * (lib/filters.ts), which is what the page reads.
 */
import { Button } from "@/components/ui/Button";
import { TextField } from "@/components/ui/TextField";

import { useAuditActors } from "../api/activity";
import { ACTION_GROUPS, actionWords, isAuditAction } from "../lib/actions";
import { type ActivityFilters as Filters, hasFilters } from "../lib/filters";

import styles from "./activity.module.css";

const NO_FILTERS: Filters = { actor: null, action: null, from: null, to: null };

export function ActivityFilters({ filters, onChange }: { filters: Filters; onChange: (next: Filters) => void }) {
  const actors = useAuditActors();
  const known = actors.data?.actors ?? [];
  const set = (change: Partial<Filters>) => onChange({ ...filters, ...change });
  return (
    <div className={styles.filters} role="search" aria-label="Filter the activity">
      <div className={styles.field}>
        <label className={styles.label} htmlFor="activity-actor">
          Who
        </label>
        <select
          id="activity-actor"
          className={styles.select}
          value={filters.actor ?? ""}
          onChange={(e) => set({ actor: e.target.value || null })}
        >
          <option value="">Everyone</option>
          {known.map((actor) =>
            actor.id ? (
              <option key={actor.id} value={actor.id}>
                {actor.name} ({actor.email})
              </option>
            ) : null,
          )}
          {filters.actor && !known.some((actor) => actor.id === filters.actor) ? (
            <option value={filters.actor}>{actors.isPending ? "Loading…" : "Someone not in this log"}</option>
          ) : null}
        </select>
      </div>
      <div className={styles.field}>
        <label className={styles.label} htmlFor="activity-action">
          Action
        </label>
        <select
          id="activity-action"
          className={styles.select}
          value={filters.action ?? ""}
          onChange={(e) => set({ action: isAuditAction(e.target.value) ? e.target.value : null })}
        >
          <option value="">All actions</option>
          {ACTION_GROUPS.map((group) => (
            <optgroup key={group.label} label={group.label}>
              {group.actions.map((action) => (
                <option key={action} value={action}>
                  {actionWords(action)}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </div>
      <TextField
        label="From"
        type="date"
        className={styles.date}
        value={filters.from ?? ""}
        max={filters.to ?? undefined}
        onChange={(e) => set({ from: e.target.value || null })}
      />
      <TextField
        label="To"
        type="date"
        className={styles.date}
        value={filters.to ?? ""}
        min={filters.from ?? undefined}
        onChange={(e) => set({ to: e.target.value || null })}
      />
      <Button variant="ghost" className={styles.clear} disabled={!hasFilters(filters)} onClick={() => onChange(NO_FILTERS)}>
        Clear
      </Button>
    </div>
  );
}
