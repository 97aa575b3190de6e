/**
 * What happens at 100 % of the plan's allowance (README "Metering intake"): 'Keep running' (the
 * usage alerts only) or 'Stop at the allowance' (the metering intake refuses requests past it
 * until the billing cycle ends). Saved with Save choice; for Owners and Admins (README "Roles and
 * invitations"): for Members the choice is disabled and Save choice has the reason as a tooltip. When
 * the current cycle stopped, a warning says since when.
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { usePermissions } from "@/api/use-permissions";

import { useUpdateUsageLimits, useUsageLimits } from "../api/account";

import styles from "./account.module.css";

type Limits = components["schemas"]["UsageLimits"];
type AtAllowance = Limits["atAllowance"];

const CHOICES: { value: AtAllowance; label: string; hint: string }[] = [
  {
    value: "keepRunning",
    label: "Keep running",
    hint: "Requests past the allowance are counted; the usage alerts tell you.",
  },
  {
    value: "stop",
    label: "Stop at the allowance",
    hint: "Requests past it are refused until the billing cycle ends; your tests' ai() calls fail.",
  },
];

export function AllowanceChoice() {
  const { data, error } = useUsageLimits();
  if (error) return <InfoBox variant="error" title={errorMessage(error)} />;
  if (!data) return <p className={page.muted}>Loading…</p>;
  return <AllowanceForm key={JSON.stringify(data)} limits={data} />;
}

function AllowanceForm({ limits }: { limits: Limits }) {
  const [choice, setChoice] = useState<AtAllowance>(limits.atAllowance);
  const save = useUpdateUsageLimits();
  const blocked = usePermissions().whyNot("changeUsageLimits");
  return (
    <form
      className={page.stack}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate({ body: { atAllowance: choice } });
      }}
    >
      <fieldset className={styles.choices} disabled={blocked !== null}>
        <legend className={styles.label}>
          When this cycle's requests reach the allowance ({limits.allowance.toLocaleString("en-US")}{" "}
          requests)
        </legend>
        {CHOICES.map((c) => (
          <label key={c.value} className={styles.choice}>
            <input
              type="radio"
              name="at-allowance"
              checked={choice === c.value}
              onChange={() => setChoice(c.value)}
            />
            {c.label}
            <span className={page.muted}>{c.hint}</span>
          </label>
        ))}
      </fieldset>
      {limits.stoppedAt ? (
        <InfoBox
          variant="warning"
          title={`Stopped at the allowance on ${new Date(limits.stoppedAt).toLocaleDateString("en-US", {
            timeZone: "UTC",
            month: "short",
            day: "numeric",
          })}: requests are refused until the cycle ends.`}
        />
      ) : null}
      {save.isError ? <InfoBox variant="error" title={errorMessage(save.error)} /> : null}
      <div>
        <DisabledReason reason={blocked} align="start">
          <Button
            type="submit"
            disabled={blocked !== null || choice === limits.atAllowance}
            loading={save.isPending}
          >
            Save choice
          </Button>
        </DisabledReason>
      </div>
    </form>
  );
}
