import { useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { Panel } from "@/components/ui/Panel";
import { RangeSlider } from "@/components/ui/RangeSlider";
import { dayLabel } from "@/lib/dates";
import { allowedRequests } from "@/lib/plan";

import { useSubscriptionPreview, useUpdateSubscription } from "../api/billing";
import { MAX_UNITS, canUpdatePlan, formatRequests, monthlyPriceUsd } from "../lib/plan";

import styles from "./billing.module.css";
import { ChargePreview } from "./ChargePreview";
import type { Blocked } from "./PaymentLink";

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
  const preview = useSubscriptionPreview(units, confirming);
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

  const confirm = () => void change({ units, prorationDate: preview.data?.prorationDate });

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
      <Modal
        open={confirming}
        onClose={() => !update.isPending && setConfirming(false)}
        title="Update Subscription"
        width="medium"
        footer={
          <>
            <Button variant="secondary" disabled={update.isPending} onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button loading={update.isPending} disabled={!preview.data} onClick={confirm}>
              Confirm
            </Button>
          </>
        }
      >
        <p>
          Change your plan from {subscription.units} to {units} {units === 1 ? "unit" : "units"}:{" "}
          ${monthlyPriceUsd(units)} per month for{" "}
          {formatRequests(allowedRequests({ ...subscription, units }))}.
        </p>
        {preview.data ? (
          <ChargePreview preview={preview.data} />
        ) : preview.error ? (
          <InfoBox variant="error" title={errorMessage(preview.error)} />
        ) : (
          <p className={page.muted} data-testid="preview-loading">
            Asking our payment provider for the amounts…
          </p>
        )}
      </Modal>
    </Panel>
  );
}
