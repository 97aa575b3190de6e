/**
 * The Activity page's filters (README "Audit log"): who (the actors of the log), which
 * action, and a range of days in the reader's calendar. Each change replaces the URL's query
 * (lib/filters.ts), which is what the page reads.
 */
import { type ReactNode, useId } from "react";

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
      <Select label="Who" value={filters.actor} onChange={(actor) => set({ actor })}>
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
      </Select>
      <Select
        label="Action"
        value={filters.action}
        onChange={(action) => set({ action: action && isAuditAction(action) ? action : null })}
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
      </Select>
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

/** A labelled select whose empty option ("") stands for no filter (null). */
function Select({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string | null;
  onChange: (value: string | null) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={id}>
        {label}
      </label>
      <select id={id} className={styles.select} value={value ?? ""} onChange={(e) => onChange(e.target.value || null)}>
        {children}
      </select>
    </div>
  );
}
