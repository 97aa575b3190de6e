import { describe, expect, it } from "vitest";

import { CARD_ERROR_CODES, paymentServerError } from "./payment-errors";

describe("payment errors (SPEC 8)", () => {
  it("words the server error with the status text", () => {
    expect(paymentServerError("Service Unavailable")).toBe(
      "Sorry - our server hit an error processing your payment method: Service Unavailable. Please try again or email support if the issue persists.",
    );
  });

  it("treats only Stripe's refusals as card errors", () => {
    expect(CARD_ERROR_CODES.has("CardDeclined")).toBe(true);
    expect(CARD_ERROR_CODES.has("PaymentProviderRefused")).toBe(true);
    expect(CARD_ERROR_CODES.has("VendorUnavailable")).toBe(false);
  });
});
