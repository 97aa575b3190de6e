/**
 * Usage alerts (README "Usage alerts and export"): which shares of the plan's allowance send an email (50, 80 and
 * 100 %, each once per billing cycle) and which users get it. Saved together with Save; the
 * thresholds this cycle already reached say when. Changing them is for Owners and Admins
 * (README "Roles and invitations"): for Members the choices are disabled and Save has the reason as a tooltip.
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { usePermissions } from "@/api/use-permissions";

import { useUpdateUsageAlerts, useUsageAlerts } from "../api/account";

import styles from "./account.module.css";

type Settings = components["schemas"]["UsageAlertSettings"];
type Threshold = Settings["thresholds"][number];
export const THRESHOLDS: readonly Threshold[] = [50, 80, 100];

export function UsageAlerts() {
  const { data, error } = useUsageAlerts();
  if (error) return <InfoBox variant="error" title={errorMessage(error)} />;
  if (!data) return <p className={page.muted}>Loading…</p>;
  return <UsageAlertsForm key={JSON.stringify(data)} settings={data} />;
}

function UsageAlertsForm({ settings }: { settings: Settings }) {
  const [thresholds, setThresholds] = useState<Threshold[]>(settings.thresholds);
  const [recipients, setRecipients] = useState<string[]>(
    settings.recipients.filter((r) => r.enabled).map((r) => r.userId),
  );
  const save = useUpdateUsageAlerts();
  const blocked = usePermissions().whyNot("changeUsageAlerts");
  const changed =
    [...thresholds].sort().join() !== [...settings.thresholds].sort().join() ||
    [...recipients].sort().join() !==
      settings.recipients
        .filter((r) => r.enabled)
        .map((r) => r.userId)
        .sort()
        .join();
  const reached = new Map(settings.reached.map((r) => [r.threshold, r.reachedAt]));

  const toggle = <T,>(list: T[], item: T, on: boolean) =>
    on ? [...list, item] : list.filter((x) => x !== item);

  return (
    <form
      className={page.stack}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate({ body: { thresholds, recipientIds: recipients } });
      }}
    >
      <fieldset className={styles.choices} disabled={blocked !== null}>
        <legend className={styles.label}>Email when this cycle's requests reach</legend>
        {THRESHOLDS.map((t) => (
          <label key={t} className={styles.choice}>
            <input
              type="checkbox"
              checked={thresholds.includes(t)}
              onChange={(e) => setThresholds(toggle(thresholds, t, e.target.checked))}
            />
            {t} % of the allowance
            {reached.has(t) ? (
              <span className={page.muted}>
                {" "}
                · sent {new Date(reached.get(t) ?? "").toLocaleDateString("en-US", { timeZone: "UTC", month: "short", day: "numeric" })}
              </span>
            ) : null}
          </label>
        ))}
      </fieldset>
      <fieldset className={styles.choices} disabled={blocked !== null}>
        <legend className={styles.label}>Send to</legend>
        {settings.recipients.map((r) => (
          <label key={r.userId} className={styles.choice}>
            <input
              type="checkbox"
              checked={recipients.includes(r.userId)}
              onChange={(e) => setRecipients(toggle(recipients, r.userId, e.target.checked))}
            />
            {r.firstName} {r.lastName} <span className={page.muted}>{r.email}</span>
          </label>
        ))}
      </fieldset>
      {save.isError ? <InfoBox variant="error" title={errorMessage(save.error)} /> : null}
      <div>
        <DisabledReason reason={blocked} align="start">
          <Button type="submit" disabled={blocked !== null || !changed} loading={save.isPending}>
            Save alerts
          </Button>
        </DisabledReason>
      </div>
    </form>
  );
}
