import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { dayLabel } from "@/lib/dates";
import { formatAmount } from "@/lib/money";

import { usePayPastDue } from "../api/billing";

import styles from "./billing.module.css";
import { type Blocked, PaymentLink } from "./PaymentLink";

type Subscription = components["schemas"]["Subscription"];

/**
 * README "Billing", past due: the amount, paid with the card on file or a new one, and until
 * when the plan's units still count (`graceEndsAt`; `unitsInForce` 0 once it has passed).
 */
export function PastDueBox({
  pastDue,
  graceEndsAt,
  unitsLapsed,
  blocked,
  onError,
}: {
  pastDue: Subscription["pastDue"];
  graceEndsAt: Subscription["graceEndsAt"];
  unitsLapsed: boolean;
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
      card.{" "}
      {unitsLapsed
        ? "Until it is paid, the account has the free plan's requests."
        : graceEndsAt
          ? `Your plan's units count until ${dayLabel(graceEndsAt)}; if it is still unpaid then, the account has the free plan's requests until it is paid.`
          : "If it stays unpaid, your plan falls back to the free plan."}
    </InfoBox>
  );
}
