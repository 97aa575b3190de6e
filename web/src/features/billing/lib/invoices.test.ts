import { describe, expect, it } from "vitest";

import { invoiceStatusLabel } from "./invoices";

describe("invoices panel texts", () => {
  it("names statuses: a failed renewal as Past due, a failed collection as Failed", () => {
    expect(invoiceStatusLabel("paid")).toBe("Paid");
    expect(invoiceStatusLabel("open")).toBe("Open");
    expect(invoiceStatusLabel("past_due")).toBe("Past due");
    expect(invoiceStatusLabel("uncollectible")).toBe("Failed");
    expect(invoiceStatusLabel("something_new")).toBe("something_new");
  });
});
