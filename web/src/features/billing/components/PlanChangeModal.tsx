/**
 * Billing's plan change confirmation (README "Billing"): the change, then Stripe's preview of
 * it (the new monthly price, what is charged today, when it takes effect, the next invoice),
 * asked for when the dialog opens; Confirm sends the change at the preview's proration date.
 */
import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { allowedRequests } from "@/lib/plan";

import { useSubscriptionPreview } from "../api/billing";
import { formatRequests, monthlyPriceUsd } from "../lib/plan";

import { ChargePreview } from "./ChargePreview";

interface PlanChangeModalProps {
  subscription: components["schemas"]["Subscription"];
  /** The units chosen on the slider. */
  units: number;
  /** The change is being sent. */
  pending: boolean;
  onCancel: () => void;
  onConfirm: (prorationDate: number | undefined) => void;
}

export function PlanChangeModal({ subscription, units, pending, onCancel, onConfirm }: PlanChangeModalProps) {
  const preview = useSubscriptionPreview(units, true);
  return (
    <Modal
      open
      onClose={onCancel}
      title="Update Subscription"
      width="medium"
      footer={
        <>
          <Button variant="secondary" disabled={pending} onClick={onCancel}>
            Cancel
          </Button>
          <Button loading={pending} disabled={!preview.data} onClick={() => onConfirm(preview.data?.prorationDate)}>
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
  );
}
