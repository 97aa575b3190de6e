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
 * - README "Billing": the confirmation shows Stripe's preview of the change (the new monthly
 *   price, what is charged today, when it takes effect, the next invoice) and confirms at the
 *   preview's proration date. A scheduled downgrade shows as 'Changes to N units on <date>'
 *   with Undo; an invoice past due shows its amount with Pay now and Use another card.
 * - Billing is for Owners (README "Roles and invitations"). For others every change (Update,
 *   Undo, Pay now, Use another card, Add Card / Edit, Remove) is disabled with 'Only Owners
 *   can change billing.' as a tooltip; where the spec already disables a control (no card),
 *   its tooltip stays. The slider and Reset stay, to see what another plan would cost.
 *
 * The page's parts are in ../components: PastDueBox, PlanPanel (with ChargePreview),
 * PaymentMethodPanel (PaymentLink for both), InvoicesPanel (loaded after the rest).
 */
import { Suspense, useState } from "react";

import { usePermissions } from "@/api/use-permissions";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { InfoBox } from "@/components/ui/InfoBox";
import { preloaded } from "@/components/preloaded";

import { useBillingSummary, useInvoices } from "../api/billing";
import { PastDueBox } from "../components/PastDueBox";
import { PaymentMethodPanel } from "../components/PaymentMethodPanel";
import { PlanPanel } from "../components/PlanPanel";

// The last panel, below the fold on most screens: a chunk of its own, fetched as this module
// runs (the first-load budget, README "Performance").
const InvoicesPanel = preloaded(() => import("../components/InvoicesPanel").then((m) => m.InvoicesPanel));

export function Component() {
  const { data } = useBillingSummary();
  useInvoices(undefined); // the panel's first read starts with the page, not once its chunk is in
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
          <PastDueBox
            pastDue={subscription.pastDue ?? null}
            graceEndsAt={subscription.graceEndsAt ?? null}
            unitsLapsed={subscription.unitsInForce < subscription.units}
            blocked={blocked}
            onError={setError}
          />
        ) : null}
        <PlanPanel
          key={`${subscription.units}:${subscription.scheduledUnits ?? ""}`}
          subscription={subscription}
          hasCard={card !== null}
          blocked={blocked}
          onError={setError}
        />
        <PaymentMethodPanel card={card} blocked={blocked} onError={setError} />
        <Suspense fallback={null}>
          <InvoicesPanel />
        </Suspense>
      </div>
    </>
  );
}
