import { Suspense, useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { preloaded } from "@/components/preloaded";
import { RangeSlider } from "@/components/ui/RangeSlider";
import { dayLabel } from "@/lib/dates";
import { allowedRequests } from "@/lib/plan";

import { useUpdateSubscription } from "../api/billing";
import { MAX_UNITS, canUpdatePlan, formatRequests, monthlyPriceUsd } from "../lib/plan";

import styles from "./billing.module.css";
import type { Blocked } from "./PaymentLink";

// The confirmation and its preview of the charges, shown on Update only: a chunk of its own,
// fetched as this module runs (the first-load budget, README "Performance").
const PlanChangeModal = preloaded(() => import("./PlanChangeModal").then((m) => m.PlanChangeModal));

export const NO_CARD_TOOLTIP = "Add a payment method to change your plan.";

type Subscription = components["schemas"]["Subscription"];

interface PlanPanelProps {
  subscription: Subscription;
  hasCard: boolean;
  blocked: Blocked;
  onError: (message: string | null) => void;
}

/** Keyed by the current and scheduled units: after a change the slider starts again at the
 * units in force. */
export function PlanPanel({ subscription, hasCard, blocked, onError }: PlanPanelProps) {
  const [units, setUnits] = useState(subscription.units);
  const [confirming, setConfirming] = useState(false);
  const update = useUpdateSubscription();
  const changed = units !== subscription.units;
  const enabled = blocked === null && canUpdatePlan(units, subscription.units, hasCard);

  // mutateAsync, not mutate's callbacks: a change remounts this panel (its key), and the
  // banner must still be cleared or set afterwards.
  const change = (body: { units: number; prorationDate?: number }) =>
    update.mutateAsync({ body }).then(
      () => {
        setConfirming(false);
        onError(null);
      },
      (err: unknown) => {
        setConfirming(false);
        onError(errorMessage(err));
      },
    );

  return (
    <Panel title="Subscription Plan" description="View and edit your current plan">
      <div className={styles.planBox}>
        {subscription.scheduledUnits != null && subscription.scheduledChangeAt ? (
          <InfoBox
            variant="info"
            title={`Changes to ${subscription.scheduledUnits} ${
              subscription.scheduledUnits === 1 ? "unit" : "units"
            } on ${dayLabel(subscription.scheduledChangeAt)}`}
            action={
              <DisabledReason reason={blocked} align="end">
                <Button
                  variant="secondary"
                  disabled={blocked !== null}
                  loading={update.isPending && !confirming}
                  onClick={() => void change({ units: subscription.units })}
                >
                  Undo
                </Button>
              </DisabledReason>
            }
          >
            You keep the {subscription.units} {subscription.units === 1 ? "unit" : "units"} paid
            for until then.
          </InfoBox>
        ) : null}
        <div className={styles.plan}>
          <div>
            <p className={page.muted}>Price</p>
            <p className={page.figure} data-testid="plan-price">
              ${monthlyPriceUsd(units)}
              <span className={page.figureUnit}>/ month</span>
            </p>
          </div>
          <div>
            <p className={page.muted}>Allowance</p>
            <p className={page.figure} data-testid="plan-allowance">
              {formatRequests(allowedRequests({ ...subscription, units }))}
            </p>
          </div>
          <div>
            <p className={page.muted}>Units</p>
            <p className={page.figure} data-testid="plan-units">
              {units}
            </p>
          </div>
        </div>
        <RangeSlider
          label="Units"
          hideLabel
          min={0}
          max={MAX_UNITS}
          value={units}
          onChange={setUnits}
          valueText={(n) => `${n} ${n === 1 ? "unit" : "units"}`}
        />
        <div className={styles.actions}>
          <Button variant="secondary" disabled={!changed} onClick={() => setUnits(subscription.units)}>
            Reset
          </Button>
          <DisabledReason reason={hasCard ? blocked : NO_CARD_TOOLTIP}>
            <Button disabled={!enabled} onClick={() => setConfirming(true)}>
              Update
            </Button>
          </DisabledReason>
        </div>
      </div>
      {confirming ? (
        <Suspense fallback={null}>
          <PlanChangeModal
            subscription={subscription}
            units={units}
            pending={update.isPending}
            onCancel={() => !update.isPending && setConfirming(false)}
            onConfirm={(prorationDate) => void change({ units, prorationDate })}
          />
        </Suspense>
      ) : null}
    </Panel>
  );
}
