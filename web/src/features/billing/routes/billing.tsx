/**
 * /billing: Billing & Subscription (SPEC 2). Read-only for now.
 * TODO(issue 6): the error banner, the plan slider with Reset / Update ('Update Subscription'
 * confirm), card brand logos, and Edit / Add Card (to /payment) and Remove.
 */
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { CardIcon } from "@/components/icons";
import { Panel } from "@/components/ui/Panel";

import { useBillingSummary } from "../api/billing";
import { allowedRequests, formatExpiry, formatRequests, monthlyPriceUsd } from "../lib/plan";

import styles from "./billing.module.css";

export function Component() {
  const { data } = useBillingSummary();
  if (!data) return null; // the shell renders pages only once the account has loaded
  const { subscription, card } = data;
  return (
    <>
      <PageHeader title="Billing & Subscription" />
      <div className={page.stack}>
        <Panel title="Subscription Plan" description="View and edit your current plan">
          <div className={styles.plan}>
            <div>
              <p className={page.muted}>Price</p>
              <p className={page.figure} data-testid="plan-price">
                ${monthlyPriceUsd(subscription.units)}
                <span className={page.figureUnit}>/ month</span>
              </p>
            </div>
            <div>
              <p className={page.muted}>Allowance</p>
              <p className={page.figure} data-testid="plan-allowance">
                {formatRequests(allowedRequests(subscription))}
              </p>
            </div>
            <div>
              <p className={page.muted}>Units</p>
              <p className={page.figure} data-testid="plan-units">
                {subscription.units}
              </p>
            </div>
          </div>
        </Panel>
        <Panel title="Payment Method" description="The current card on file for your account">
          {card ? (
            <div className={styles.card}>
              <span className={styles.cardIcon}>
                <CardIcon width={20} height={20} />
              </span>
              <div>
                <p className={styles.cardLine}>
                  {card.brand} · Card ending in {card.last4}
                </p>
                <p className={page.muted}>Expires {formatExpiry(card.expMonth, card.expYear)}</p>
              </div>
            </div>
          ) : (
            <p className={page.muted}>No payment method added</p>
          )}
        </Panel>
      </div>
    </>
  );
}
