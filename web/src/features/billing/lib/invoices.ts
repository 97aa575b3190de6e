/** How the invoices panel shows an invoice (README "Billing"). */

const STATUS_LABELS: Readonly<Record<string, string>> = {
  paid: "Paid",
  open: "Open",
  past_due: "Past due",
  uncollectible: "Failed",
  void: "Void",
  draft: "Draft",
};

/**
 * The invoice's status as a word: paid, open, past due (open, and a payment of it failed),
 * failed (uncollectible), void, draft.
 */
export function invoiceStatusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}
