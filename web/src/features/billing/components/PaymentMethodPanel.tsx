import { errorMessage } from "@/api";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { Panel } from "@/components/ui/Panel";

import { useRemovePaymentMethod } from "../api/billing";
import { formatExpiry } from "../lib/plan";

import styles from "./billing.module.css";
import { CardBrandLogo } from "./CardBrandLogo";
import { type Blocked, PaymentLink } from "./PaymentLink";

interface PaymentMethodPanelProps {
  card: { brand: string; last4: string; expMonth: number; expYear: number } | null;
  blocked: Blocked;
  onError: (message: string | null) => void;
}

export function PaymentMethodPanel({ card, blocked, onError }: PaymentMethodPanelProps) {
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
