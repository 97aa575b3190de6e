/**
 * Amounts of money as the console writes them (README "Billing"): Billing (plan, invoices,
 * what is past due) and the sidebar's past-due warning both show them, so it lives here once.
 */

/** An amount in the currency's smallest unit (cents), e.g. 6000 usd -> "$60.00". */
export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100);
}
