/**
 * Plan arithmetic of SPEC 9: 20 USD per unit (whole dollars). The allowance is
 * `allowedRequests` in lib/plan.ts, shared with Account Information.
 */

export const PRICE_PER_UNIT_USD = 20;
/** SPEC 9: "Slider is 0 to 20 whole units". */
export const MAX_UNITS = 20;

export function monthlyPriceUsd(units: number): number {
  return Math.max(0, Math.round(units)) * PRICE_PER_UNIT_USD;
}

/** 'N requests', N with thousands separators. */
export function formatRequests(count: number): string {
  return `${count.toLocaleString("en-US")} requests`;
}

/** The card's expiry as MM/YY (SPEC 9: "Card year is shown as two digits"). */
export function formatExpiry(expMonth: number, expYear: number): string {
  return `${String(expMonth).padStart(2, "0")}/${String(expYear % 100).padStart(2, "0")}`;
}

/**
 * SPEC 4/5: Update is enabled only when the slider differs from the current units and a card
 * is on file.
 */
export function canUpdatePlan(selected: number, current: number, hasCard: boolean): boolean {
  return hasCard && selected !== current;
}
