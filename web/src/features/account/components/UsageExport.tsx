/**
 * Usage export (README "Usage alerts and export"): any of the 12 billing cycles the graph shows, as a CSV of runs and
 * credits per UTC day and platform (GET /web/usage/export), downloaded by the browser.
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";

import { downloadUsageCsv } from "../api/account";

import styles from "./account.module.css";

const DATE = { timeZone: "UTC", month: "short", day: "numeric", year: "numeric" } as const;

/** "Nov 23, 2026": how a cycle is named in the list (its start, UTC). */
export function cycleLabel(startMs: number): string {
  return new Date(startMs).toLocaleDateString("en-US", DATE);
}

export function UsageExport({ cycleStarts }: { cycleStarts: number[] }) {
  const newestFirst = [...cycleStarts].reverse();
  const [selected, setSelected] = useState(newestFirst[0]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (selected === undefined) return null;
  return (
    <div className={styles.exportRow}>
      <label className={styles.label} htmlFor="export-cycle">
        Export usage (CSV)
      </label>
      <select
        id="export-cycle"
        className={styles.select}
        value={selected}
        onChange={(e) => setSelected(Number(e.target.value))}
      >
        {newestFirst.map((start, i) => (
          <option key={start} value={start}>
            Cycle from {cycleLabel(start)}
            {i === 0 ? " (current)" : ""}
          </option>
        ))}
      </select>
      <Button
        variant="secondary"
        loading={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          downloadUsageCsv(selected)
            .catch((err: unknown) => setError(errorMessage(err)))
            .finally(() => setBusy(false));
        }}
      >
        Download CSV
      </Button>
      {error ? (
        <span role="alert" className={styles.error}>
          {error}
        </span>
      ) : null}
    </div>
  );
}
