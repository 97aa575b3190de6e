/**
 * /billing and /payment (SPEC 2 "Billing & Subscription", "Update payment page", 4 "Plan
 * slider", 5 "Slider"; README "Roles and invitations": billing is for Owners), rendered with
 * the app's routes against the fake API.
 */
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";

import { api } from "@/test/fake-api";
import { VISA, signedIn } from "@/test/fixtures";
import { expectDisabledWithTooltip, expectLocation, renderRoute } from "@/test/render";

const BILLING = "Only Owners can change billing.";
const NO_CARD = "Add a payment method to change your plan.";

async function openBilling() {
  const view = renderRoute("/billing");
  await screen.findByRole("heading", { name: "Billing & Subscription" });
  return view;
}

const paymentMethod = () => screen.getByRole("region", { name: "Payment Method" });
const updateButton = () => screen.getByRole("button", { name: "Update" });

/** Moves the plan's slider to `units` (as its arrow keys would). */
function slideTo(units: number) {
  fireEvent.input(screen.getByRole("slider", { name: "Units" }), { target: { value: String(units) } });
}

describe("Billing & Subscription", () => {
  it("gives an Owner with a card Edit, Remove, and Update once the plan changes", async () => {
    signedIn("Owner", { billing: VISA });
    await openBilling();

    const card = within(paymentMethod());
    expect(card.getByText("Card ending in 4242")).toBeDefined();
    expect(card.getByText("Expires 08/31")).toBeDefined();
    expect(card.getByRole("img", { name: "Visa" })).toBeDefined();
    expect(card.getByRole("link", { name: "Edit" }).getAttribute("href")).toBe("/payment");
    expect(card.getByRole("button", { name: "Remove" })).toHaveProperty("disabled", false);

    expect(updateButton()).toHaveProperty("disabled", true);
    slideTo(3);
    expect(screen.getByTestId("plan-price").textContent).toBe("$60/ month");
    expect(screen.getByTestId("plan-allowance").textContent).toBe("3,000 requests");
    expect(updateButton()).toHaveProperty("disabled", false);
    fireEvent.click(screen.getByRole("button", { name: "Reset" }));
    expect(updateButton()).toHaveProperty("disabled", true);
  });

  it("gives an Owner without a card Add Card, a disabled Edit, and the no-card tooltip on Update", async () => {
    signedIn("Owner");
    const { user } = await openBilling();

    const card = within(paymentMethod());
    expect(card.getByText("No payment method added")).toBeDefined();
    expect(card.getByRole("link", { name: "Add Card" }).getAttribute("href")).toBe("/payment");
    expect(card.getByRole("button", { name: "Edit" })).toHaveProperty("disabled", true);
    expect(card.queryByRole("button", { name: "Remove" })).toBeNull();

    slideTo(2);
    await expectDisabledWithTooltip(user, updateButton(), NO_CARD);
  });

  it.each(["Admin", "Member"] as const)("disables every billing change for the %s role, with the role it needs", async (role) => {
    signedIn(role, { billing: VISA });
    const { user } = await openBilling();

    const card = within(paymentMethod());
    expect(card.queryByRole("link")).toBeNull(); // no way to /payment
    await expectDisabledWithTooltip(user, card.getByRole("button", { name: "Edit" }), BILLING);
    await expectDisabledWithTooltip(user, card.getByRole("button", { name: "Remove" }), BILLING);
    slideTo(4); // the slider stays, to see what another plan would cost
    expect(screen.getByTestId("plan-price").textContent).toBe("$80/ month");
    await expectDisabledWithTooltip(user, updateButton(), BILLING);
  });

  it("keeps the no-card tooltip for an Admin of an account without a card", async () => {
    signedIn("Admin");
    const { user } = await openBilling();
    await expectDisabledWithTooltip(user, within(paymentMethod()).getByRole("button", { name: "Add Card" }), BILLING);
    slideTo(1);
    await expectDisabledWithTooltip(user, updateButton(), NO_CARD);
  });
});

describe("/payment", () => {
  afterEach(() => {
    Reflect.deleteProperty(window, "Stripe");
  });

  it.each(["Admin", "Member"] as const)("shows the %s role why instead of the card form, and the way back", async (role) => {
    signedIn(role);
    const { user } = renderRoute("/payment");

    await screen.findByRole("heading", { name: "Payment Method" });
    const reason = screen.getByRole("status");
    expect(within(reason).getByText(BILLING)).toBeDefined();
    expect(reason.textContent).toContain("Ask an Owner of this account to update the payment method.");
    expect(screen.queryByTestId("card-element")).toBeNull();
    expect(screen.queryByRole("button", { name: "Update Payment Method" })).toBeNull();
    expect(api().callsTo("get", "/web/config")).toEqual([]); // Stripe.js is never asked for

    await user.click(within(reason).getByRole("link", { name: "Back to Billing" }));
    await expectLocation("/billing");
  });

  it("lets an Owner update the card, then congratulates them", async () => {
    signedIn("Owner");
    api().on("post", "/web/subscription/payment", { status: 200, body: { billing: VISA } });
    // Stripe.js as the page finds it once its script has loaded: a card element that gives a token.
    const cardElement = { mount: () => undefined, on: () => undefined, destroy: () => undefined };
    Object.assign(window, {
      Stripe: () => ({
        elements: () => ({ create: () => cardElement }),
        createToken: () => Promise.resolve({ token: { id: "tok_visa" } }),
      }),
    });
    const { user } = renderRoute("/payment");

    expect(
      await screen.findByText(
        "Your card will be charged monthly for your subscription. You can cancel at any time; there are no refunds or credits for partial months.",
      ),
    ).toBeDefined();
    const update = screen.getByRole("button", { name: "Update Payment Method" });
    await waitFor(() => expect(update).toHaveProperty("disabled", false)); // once Stripe.js is in
    await user.click(update);

    expect((await screen.findByRole("status")).textContent).toBe(
      "Congratulations! You've successfully modified your payment method.",
    );
    expect(screen.getByRole("link", { name: "Back to the console" }).getAttribute("href")).toBe("/");
    expect(api().callsTo("post", "/web/subscription/payment").map((c) => c.body)).toEqual([{ cardToken: "tok_visa" }]);
  });
});
