import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { dayLabel } from "@/lib/dates";
import { formatAmount } from "@/lib/money";

import styles from "./billing.module.css";

type Preview = components["schemas"]["SubscriptionPreview"];

/** README "Billing", preview first: what the change costs, today and from the next invoice. */
export function ChargePreview({ preview }: { preview: Preview }) {
  const money = (amount: number) => formatAmount(amount, preview.currency);
  const rows: [string, string][] = [["New monthly price", money(preview.monthlyAmount)]];
  if (preview.change === "upgrade") {
    rows.push(["Charged today for the rest of this billing cycle", money(preview.amountDueNow)]);
  } else if (preview.change === "start") {
    rows.push(["Charged today for the first month", money(preview.amountDueNow)]);
  } else if (preview.change === "downgrade" || preview.change === "cancel") {
    rows.push(["Takes effect on", dayLabel(preview.effectiveAt)]);
  }
  rows.push([
    "Next invoice",
    preview.nextInvoiceAt && preview.nextInvoiceAmount != null
      ? `${money(preview.nextInvoiceAmount)} on ${dayLabel(preview.nextInvoiceAt)}`
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
