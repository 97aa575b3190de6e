/** How the invoices panel shows an invoice (README "Billing"). */

const STATUS_LABELS: Readonly<Record<string, string>> = {
  paid: "Paid",
  open: "Open",
  uncollectible: "Failed",
  void: "Void",
  draft: "Draft",
};

/** Stripe's invoice status as a word: paid, open, failed (uncollectible), void, draft. */
export function invoiceStatusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

/** An amount in the currency's smallest unit (cents), e.g. 6000 usd -> "$60.00". */
export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100);
}

/** "Nov 23, 2026", in UTC like the billing cycles. */
export function formatBillingDate(iso: string): string {
  return new Date(iso).toLocaleDateString("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" });
}
