/**
 * Which message a failed POST /web/subscription/payment shows on /payment (SPEC 8 "Payment").
 *
 * Stripe's refusals (the API's CardDeclined and PaymentProviderRefused: a declined card, a
 * bad token) are about the card: Stripe's own message shows under the card field like the
 * field's validation errors (README "Billing": a declined card shows Stripe's message).
 * Every other failure shows SPEC 8's server-error text with the response's status text.
 */
import type { ErrorCode, ErrorCodeOf } from "@/api";

export const CARD_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<
  ErrorCodeOf<"/web/subscription/payment", "post">
>(["CardDeclined", "PaymentProviderRefused"]);

export function paymentServerError(statusText: string): string {
  return `Sorry - our server hit an error processing your payment method: ${statusText}. Please try again or email support if the issue persists.`;
}

/** The card form's code or Stripe.js could not be loaded. */
export const CARD_FORM_LOAD_ERROR = "The card form could not be loaded. Please reload the page.";
