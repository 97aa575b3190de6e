/**
 * Where a billing cycle's requests went (README "Usage alerts and export"): pick one of the 12
 * cycles the graph shows and a label, and see the requests by API key and by the label's values
 * (its top 10, the other values, the requests without it), each with its share of the cycle;
 * Download CSV saves that cycle per day and platform with the same breakdown as extra columns.
 * Read from the rollups the metering intake keeps: GET /web/usage over the cycle, grouped by API
 * key and by the label (../lib/usage-series.ts puts the two together).
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";

import { downloadUsageCsv, useApiKeys } from "../api/account";
import { useCycleBreakdown } from "../api/usage";
import { type BreakdownRow, keyRows, labelRows, shareText } from "../lib/spend";
import type { Cycle } from "../lib/usage-series";

import styles from "./account.module.css";

const DATE = { timeZone: "UTC", month: "short", day: "numeric", year: "numeric" } as const;

/** "Nov 23, 2026": how a cycle is named in the list (its start, UTC). */
export function cycleLabel(startMs: number): string {
  return new Date(startMs).toLocaleDateString("en-US", DATE);
}

/** `cycles`: the cycles the graph shows, oldest first. */
export function UsageBreakdown({ cycles }: { cycles: Cycle[] }) {
  const newestFirst = cycles.map((c) => c.startMs).reverse();
  const [cycle, setCycle] = useState(newestFirst[0] ?? 0);
  const [label, setLabel] = useState<string | null>(null);
  const { data, error } = useCycleBreakdown(
    cycles.find((c) => c.startMs === cycle),
    label,
  );
  const currentKeyId = useApiKeys().data?.keys[0]?.id;
  const [busy, setBusy] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const labels = data?.labels ?? [];
  return (
    <div className={page.stack}>
      <div className={styles.breakdownControls}>
        <div className={styles.control}>
          <label className={styles.label} htmlFor="breakdown-cycle">
            Billing cycle
          </label>
          <select
            id="breakdown-cycle"
            className={styles.select}
            value={cycle}
            onChange={(e) => {
              setCycle(Number(e.target.value));
              setLabel(null);
            }}
          >
            {newestFirst.map((start, i) => (
              <option key={start} value={start}>
                Cycle from {cycleLabel(start)}
                {i === 0 ? " (current)" : ""}
              </option>
            ))}
          </select>
        </div>
        <div className={styles.control}>
          <label className={styles.label} htmlFor="breakdown-label">
            Label
          </label>
          <select
            id="breakdown-label"
            className={styles.select}
            value={data?.label ?? ""}
            disabled={!labels.length}
            onChange={(e) => setLabel(e.target.value)}
          >
            {labels.length ? null : <option value="">No labels this cycle</option>}
            {labels.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <Button
          variant="secondary"
          loading={busy}
          onClick={() => {
            setBusy(true);
            setDownloadError(null);
            downloadUsageCsv(cycle, data?.label)
              .catch((err: unknown) => setDownloadError(errorMessage(err)))
              .finally(() => setBusy(false));
          }}
        >
          Download CSV
        </Button>
      </div>
      {downloadError ? (
        <p role="alert" className={styles.error}>
          {downloadError}
        </p>
      ) : null}
      {error ? <InfoBox variant="error" title={errorMessage(error)} /> : null}
      {data ? (
        <>
          <p className={page.muted} data-testid="breakdown-total">
            {data.requests.toLocaleString("en-US")} {data.requests === 1 ? "request" : "requests"}{" "}
            in this cycle
          </p>
          <ShareTable caption="By API key" first="API key" rows={keyRows(data, currentKeyId)} />
          {data.label ? (
            <ShareTable caption={`By ${data.label}`} first={data.label} rows={labelRows(data)} />
          ) : (
            <p className={page.muted}>
              No record of this cycle carries labels. Send <code>labels</code> with the metering
              records (for example a project or a CI pipeline) to see where the requests went.
            </p>
          )}
        </>
      ) : error ? null : (
        <p className={page.muted}>Loading…</p>
      )}
    </div>
  );
}

function ShareTable({ caption, first, rows }: { caption: string; first: string; rows: BreakdownRow[] }) {
  return (
    <table className={`${page.table} ${styles.shareTable}`}>
      <caption className={styles.caption}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col" className={styles.number}>
            Requests
          </th>
          <th scope="col">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows.length ? (
          rows.map((row) => (
            <tr key={`${row.rest ? "rest" : "row"}:${row.name}`}>
              <td className={row.rest ? page.muted : undefined}>
                {row.rest ? row.name : <span className={styles.value}>{row.name}</span>}
                {row.note ? <span className={page.muted}> · {row.note}</span> : null}
              </td>
              <td className={styles.number}>{row.requests.toLocaleString("en-US")}</td>
              <td>
                <span className={styles.share}>
                  <span className={styles.shareBar} aria-hidden="true">
                    <span style={{ width: `${Math.min(100, row.share * 100)}%` }} />
                  </span>
                  {shareText(row.share)}
                </span>
              </td>
            </tr>
          ))
        ) : (
          <tr>
            <td colSpan={3} className={page.muted}>
              No requests in this cycle.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
