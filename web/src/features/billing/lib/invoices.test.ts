import { describe, expect, it } from "vitest";

import { formatAmount, formatBillingDate, invoiceStatusLabel } from "./invoices";

describe("invoices panel texts", () => {
  it("writes amounts from cents in the invoice's currency", () => {
    expect(formatAmount(6000, "usd")).toBe("$60.00");
    expect(formatAmount(1999, "eur")).toBe("€19.99");
  });

  it("names statuses, a failed collection as Failed", () => {
    expect(invoiceStatusLabel("paid")).toBe("Paid");
    expect(invoiceStatusLabel("uncollectible")).toBe("Failed");
    expect(invoiceStatusLabel("something_new")).toBe("something_new");
  });

  it("dates invoices in UTC", () => {
    expect(formatBillingDate("2026-11-23T23:30:00Z")).toBe("Nov 23, 2026");
  });
});
