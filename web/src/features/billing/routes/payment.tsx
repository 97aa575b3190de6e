/**
 * /payment (title 'Payment'): update the payment method (SPEC 2).
 * TODO(issue 6): step 1 (the card provider's card element, terms and privacy links, the
 * monthly-charge notice and 'Update Payment Method') and step 2 ('Congratulations! …').
 */
import { Link } from "react-router";

import { PageHeader } from "@/components/layout/PageHeader";
import { InfoBox } from "@/components/ui/InfoBox";

import styles from "./payment.module.css";

export function Component() {
  return (
    <main className={styles.page}>
      <PageHeader title="Update payment method" />
      <InfoBox variant="info" title="Card entry is not available yet">
        Your current payment method is unchanged.
      </InfoBox>
      <p className={styles.back}>
        <Link to="/billing">Back to Billing &amp; Subscription</Link>
      </p>
    </main>
  );
}
