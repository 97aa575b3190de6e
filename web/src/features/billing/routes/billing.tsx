/**
 * /billing: Billing & Subscription (SPEC 2; SPEC 4 "Plan slider"; SPEC 5 "Slider"; SPEC 8
 * "Billing"; SPEC 9 price and allowance).
 *
 * Decisions on the spec's wording:
 * - "Remove is active only with a card. Without one, a disabled Edit button is shown": taken
 *   as written. With a card the Payment Method panel has Edit (to /payment) and an active
 *   Remove; without one it has Add Card (to /payment) and, where Remove sits, a disabled
 *   button labelled Edit.
 * - SPEC 8's card-panel text ('Sorry - we could not remove the payment method. ...') "is
 *   never triggered, so it never appears": it is not rendered. A failed removal shows the
 *   server's message in the banner at the top, as SPEC 8 says for "card removal errors".
 * - The price and allowance follow the slider, so the user sees what a change means before
 *   confirming; they equal the current plan until the slider moves.
 * - The Update button's hover tooltip (its text is "not shown" in the spec) reads 'Add a
 *   payment method to change your plan.'
 * - Issue 11: the confirmation shows Stripe's preview of the change (the new monthly price,
 *   what is charged today, when it takes effect, the next invoice) and confirms at the
 *   preview's proration date. A scheduled downgrade shows as 'Changes to N units on <date>'
 *   with Undo; an invoice past due shows its amount with Pay now and Use another card.
 * - Issue 15: billing is for Owners. For others every change (Update, Undo, Pay now, Use
 *   another card, Add Card / Edit, Remove) is disabled with 'Only Owners can change billing.'
 *   as a tooltip; where the spec already disables a control (no card), its tooltip stays.
 *   The slider and Reset stay, to see what another plan would cost.
 */
import { useState } from "react";
import { Link } from "react-router";

import { errorMessage } from "@/api";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import buttonStyles from "@/components/ui/Button.module.css";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { Panel } from "@/components/ui/Panel";
import { RangeSlider } from "@/components/ui/RangeSlider";
import { allowedRequests } from "@/lib/plan";
import { usePermissions } from "@/api/use-permissions";

import type { components } from "@/api/schema";

import {
  useBillingSummary,
  usePayPastDue,
  useRemovePaymentMethod,
  useSubscriptionPreview,
  useUpdateSubscription,
} from "../api/billing";
import { CardBrandLogo } from "../components/CardBrandLogo";
import { InvoicesPanel } from "../components/InvoicesPanel";
import { formatAmount, formatBillingDate } from "../lib/invoices";
import {
  MAX_UNITS,
  canUpdatePlan,
  formatExpiry,
  formatRequests,
  monthlyPriceUsd,
} from "../lib/plan";

import styles from "./billing.module.css";

export const NO_CARD_TOOLTIP = "Add a payment method to change your plan.";

export function Component() {
  const { data } = useBillingSummary();
  const [error, setError] = useState<string | null>(null);
  const blocked = usePermissions().whyNot("changeBilling");
  if (!data) return null; // the shell renders pages only once the account has loaded
  const { subscription, card } = data;
  return (
    <>
      <PageHeader title="Billing & Subscription" />
      <div className={page.stack}>
        {error ? (
          <InfoBox variant="error" title={error} />
        ) : null}
        {subscription.paymentFailedAt ? (
          <PastDueBox pastDue={subscription.pastDue ?? null} blocked={blocked} onError={setError} />
        ) : null}
        <PlanPanel
          key={`${subscription.units}:${subscription.scheduledUnits ?? ""}`}
          subscription={subscription}
          hasCard={card !== null}
          blocked={blocked}
          onError={setError}
        />
        <PaymentMethodPanel card={card} blocked={blocked} onError={setError} />
        <InvoicesPanel />
      </div>
    </>
  );
}

type Subscription = components["schemas"]["Subscription"];
type Preview = components["schemas"]["SubscriptionPreview"];

/** Why the signed-in user may not change billing (issue 15), or null when they may. */
type Blocked = string | null;

/** A link to /payment that looks like a button; disabled, with the reason, for non-Owners. */
function PaymentLink({ blocked, children }: { blocked: Blocked; children: string }) {
  return blocked ? (
    <DisabledReason reason={blocked}>
      <Button variant="secondary" disabled>
        {children}
      </Button>
    </DisabledReason>
  ) : (
    <Link to="/payment" className={`${buttonStyles.button} ${buttonStyles.secondary}`}>
      {children}
    </Link>
  );
}

/** issue 11 "Past due": the amount, paid with the card on file or a new one. */
function PastDueBox({
  pastDue,
  blocked,
  onError,
}: {
  pastDue: Subscription["pastDue"];
  blocked: Blocked;
  onError: (message: string | null) => void;
}) {
  const pay = usePayPastDue();
  const amount = pastDue ? formatAmount(pastDue.amountDue, pastDue.currency) : null;
  return (
    <InfoBox
      variant="warning"
      title={amount ? `A payment of ${amount} is past due` : "Your last payment failed"}
      action={
        <div className={styles.actions}>
          <PaymentLink blocked={blocked}>Use another card</PaymentLink>
          {pastDue ? (
            <DisabledReason reason={blocked} align="end">
              <Button
                disabled={blocked !== null}
                loading={pay.isPending}
                onClick={() =>
                  pay.mutate(
                    {},
                    { onSuccess: () => onError(null), onError: (err) => onError(errorMessage(err)) },
                  )
                }
              >
                Pay now
              </Button>
            </DisabledReason>
          ) : null}
        </div>
      }
    >
      We could not charge your card for your plan. Pay now with the card on file, or use another
      card. If it stays unpaid, your plan falls back to the free plan.
    </InfoBox>
  );
}

interface PlanPanelProps {
  subscription: Subscription;
  hasCard: boolean;
  blocked: Blocked;
  onError: (message: string | null) => void;
}

/** Keyed by the current and scheduled units: after a change the slider starts again at the
 * units in force. */
function PlanPanel({ subscription, hasCard, blocked, onError }: PlanPanelProps) {
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
            } on ${formatBillingDate(subscription.scheduledChangeAt)}`}
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

/** issue 11 "Charge preview": what the change costs, today and from the next invoice. */
function ChargePreview({ preview }: { preview: Preview }) {
  const money = (amount: number) => formatAmount(amount, preview.currency);
  const rows: [string, string][] = [["New monthly price", money(preview.monthlyAmount)]];
  if (preview.change === "upgrade") {
    rows.push(["Charged today for the rest of this billing cycle", money(preview.amountDueNow)]);
  } else if (preview.change === "start") {
    rows.push(["Charged today for the first month", money(preview.amountDueNow)]);
  } else if (preview.change === "downgrade" || preview.change === "cancel") {
    rows.push(["Takes effect on", formatBillingDate(preview.effectiveAt)]);
  }
  rows.push([
    "Next invoice",
    preview.nextInvoiceAt && preview.nextInvoiceAmount != null
      ? `${money(preview.nextInvoiceAmount)} on ${formatBillingDate(preview.nextInvoiceAt)}`
      : "None",
  ]);
  return (
    <div className={styles.preview} data-testid="charge-preview">
      <dl>
        {rows.map(([term, value]) => (
          <div key={term} className={styles.previewRow}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {preview.change === "downgrade" || preview.change === "cancel" ? (
        <p className={page.muted}>
          Until then you keep the units you paid for. There are no refunds or credits for partial
          months.
        </p>
      ) : null}
    </div>
  );
}

interface PaymentMethodPanelProps {
  card: { brand: string; last4: string; expMonth: number; expYear: number } | null;
  blocked: Blocked;
  onError: (message: string | null) => void;
}

function PaymentMethodPanel({ card, blocked, onError }: PaymentMethodPanelProps) {
  const remove = useRemovePaymentMethod();
  return (
    <Panel title="Payment Method" description="The current card on file for your account">
      <div className={styles.cardRow}>
        {card ? (
          <div className={styles.card}>
            <CardBrandLogo brand={card.brand} />
            <div>
              <p className={styles.cardLine}>Card ending in {card.last4}</p>
              <p className={page.muted}>Expires {formatExpiry(card.expMonth, card.expYear)}</p>
            </div>
          </div>
        ) : (
          <p className={page.muted}>No payment method added</p>
        )}
        <div className={styles.actions}>
          <PaymentLink blocked={blocked}>{card ? "Edit" : "Add Card"}</PaymentLink>
          {card ? (
            // distinct keys: no colour transition from Remove to the disabled Edit
            <DisabledReason key="remove" reason={blocked}>
              <Button
                variant="danger"
                disabled={blocked !== null}
                loading={remove.isPending}
                onClick={() =>
                  remove.mutate(
                    {},
                    { onSuccess: () => onError(null), onError: (err) => onError(errorMessage(err)) },
                  )
                }
              >
                Remove
              </Button>
            </DisabledReason>
          ) : (
            <Button key="edit" variant="secondary" disabled>
              Edit
            </Button>
          )}
        </div>
      </div>
    </Panel>
  );
}
