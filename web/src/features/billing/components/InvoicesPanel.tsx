/**
 * The account's invoices on Billing & Subscription (README "Billing"): date, amount,
 * status and Stripe's hosted invoice or PDF when it gives them, newest first, 12 at a time
 * with "Show older invoices".
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { Spinner } from "@/components/ui/Spinner";
import { dayLabel } from "@/lib/dates";
import { formatAmount } from "@/lib/money";

import { useInvoices } from "../api/billing";
import { invoiceStatusLabel } from "../lib/invoices";

import styles from "./InvoicesPanel.module.css";

function InvoicePage({ startingAfter, onMore }: { startingAfter?: string; onMore: (last: string) => void }) {
  const page = useInvoices(startingAfter);
  if (page.isPending) {
    return (
      <tr>
        <td colSpan={4} className={styles.muted}>
          <Spinner size={14} /> Loading invoices…
        </td>
      </tr>
    );
  }
  if (page.isError) {
    return (
      <tr>
        <td colSpan={4}>
          <InfoBox variant="error" title={errorMessage(page.error)} />
        </td>
      </tr>
    );
  }
  const { invoices, hasMore } = page.data;
  const last = invoices.at(-1);
  return (
    <>
      {invoices.map((invoice) => (
        <tr key={invoice.id}>
          <td>{dayLabel(invoice.createdAt)}</td>
          <td className={styles.amount}>{formatAmount(invoice.amountDue, invoice.currency)}</td>
          <td>
            <span className={styles.status} data-status={invoice.status}>
              {invoiceStatusLabel(invoice.status)}
            </span>
          </td>
          <td className={styles.links}>
            {invoice.hostedInvoiceUrl ? (
              <a href={invoice.hostedInvoiceUrl} target="_blank" rel="noreferrer">
                View
              </a>
            ) : null}
            {invoice.invoicePdf ? (
              <a href={invoice.invoicePdf} target="_blank" rel="noreferrer">
                PDF
              </a>
            ) : null}
          </td>
        </tr>
      ))}
      {hasMore && last ? (
        <tr>
          <td colSpan={4}>
            <Button variant="secondary" size="md" onClick={() => onMore(last.id)}>
              Show older invoices
            </Button>
          </td>
        </tr>
      ) : null}
    </>
  );
}

export function InvoicesPanel() {
  // Cursors of the pages shown: the first page, then one per "Show older invoices".
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const first = useInvoices(undefined);
  const empty = first.data?.invoices.length === 0;
  return (
    <Panel title="Invoices" description="Every charge for your plan, newest first">
      {empty ? (
        <p className={styles.muted}>No invoices yet. They appear here once you are on a paid plan.</p>
      ) : (
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className={styles.hidden}>Links</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {cursors.map((cursor, index) => (
              <InvoicePage
                key={cursor ?? "first"}
                startingAfter={cursor}
                onMore={(last) => setCursors((shown) => (index === shown.length - 1 ? [...shown, last] : shown))}
              />
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
