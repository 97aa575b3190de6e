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

/** "Nov 23, 2026", in UTC like the billing cycles. */
export function formatBillingDate(iso: string): string {
  return new Date(iso).toLocaleDateString("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" });
}
