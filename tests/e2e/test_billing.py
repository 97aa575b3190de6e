"""Billing & Subscription and /payment in the browser against the dev stack (localstripe's
Stripe.js card element): add a card, a declined card, change the plan, remove the card.

One test, leaving the demo account as it found it (no card, 0 units), since the dev stack is
shared by every e2e test of a run."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, sign_in


def fill_card(page: Page, number: str) -> None:
    """localstripe's card element: five plain inputs named by their placeholders."""
    field = page.get_by_test_id("card-element")
    field.get_by_placeholder("number", exact=True).fill(number)
    field.get_by_placeholder("exp_month").fill("08")
    field.get_by_placeholder("exp_year").fill("31")
    field.get_by_placeholder("cvc").fill("123")
    field.get_by_placeholder("postal_code").fill("94107")


def set_plan(page: Page, units: int) -> None:
    """Move the slider with the keyboard, then Update and Confirm."""
    slider = page.get_by_role("slider", name="Units")
    slider.focus()
    page.keyboard.press("Home")
    for _ in range(units):
        page.keyboard.press("ArrowRight")
    expect(slider).to_have_value(str(units))
    page.get_by_role("button", name="Update", exact=True).click()
    dialog = page.get_by_role("dialog", name="Update Subscription")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Confirm").click()
    expect(dialog).to_be_hidden()


def test_card_plan_and_removal(page: Page) -> None:
    sign_in(page)
    page.get_by_role("link", name="Billing & Subscription").click()
    expect(page.get_by_role("heading", name="Billing & Subscription")).to_be_visible()
    payment_panel = page.get_by_role("region", name="Payment Method")
    expect(payment_panel.get_by_text("No payment method added")).to_be_visible()
    # Without a card: Add Card, a disabled Edit in Remove's place, and Update disabled.
    expect(payment_panel.get_by_role("button", name="Edit")).to_be_disabled()
    expect(page.get_by_role("button", name="Update", exact=True)).to_be_disabled()

    payment_panel.get_by_role("link", name="Add Card").click()
    expect(page).to_have_url(re.compile(r"/payment$"))
    expect(page).to_have_title("Payment")
    expect(
        page.get_by_text(re.compile("cancel at any time.*no refunds or credits for partial months"))
    ).to_be_visible()

    # A declined card: Stripe's message under the card field, still on step 1.
    fill_card(page, "4000000000000002")
    page.get_by_role("button", name="Update Payment Method").click()
    expect(page.get_by_test_id("card-error")).to_have_text("Your card was declined.")
    page.screenshot(path=str(ARTIFACTS / "payment_declined.png"), full_page=True)

    fill_card(page, "4242424242424242")
    page.get_by_role("button", name="Update Payment Method").click()
    expect(
        page.get_by_text("Congratulations! You've successfully modified your payment method.")
    ).to_be_visible()
    page.get_by_role("link", name="Back to the console").click()
    expect(page).to_have_url(re.compile(r"/account$"))

    page.goto("/billing")
    expect(payment_panel.get_by_text("Card ending in 4242")).to_be_visible()
    expect(payment_panel.get_by_text("Expires 08/31")).to_be_visible()
    expect(payment_panel.get_by_role("img", name="Visa")).to_be_visible()
    expect(payment_panel.get_by_role("link", name="Edit")).to_be_visible()

    set_plan(page, 3)
    page.reload()
    expect(page.get_by_test_id("plan-price")).to_have_text("$60/ month")
    expect(page.get_by_test_id("plan-allowance")).to_have_text("3,000 requests")
    expect(page.get_by_role("slider", name="Units")).to_have_value("3")
    expect(page.get_by_role("button", name="Update", exact=True)).to_be_disabled()
    # The plan's first invoice is listed.
    invoices = page.get_by_role("region", name="Invoices")
    expect(invoices.get_by_role("cell", name="$60.00")).to_be_visible()
    expect(invoices.get_by_text("Paid")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "billing_with_card.png"), full_page=True)

    # A paid plan keeps its card: the refusal shows in the banner, the card stays.
    payment_panel.get_by_role("button", name="Remove").click()
    expect(
        page.get_by_text("Set your plan to 0 units or add another card before removing this one.")
    ).to_be_visible()
    expect(payment_panel.get_by_role("img", name="Visa")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "billing_card_removal_refused.png"))

    # Back to the free plan, then remove the card (the demo account as it was).
    set_plan(page, 0)
    expect(page.get_by_test_id("plan-allowance")).to_have_text("100 requests")
    payment_panel.get_by_role("button", name="Remove").click()
    expect(payment_panel.get_by_text("No payment method added")).to_be_visible()
    page.get_by_role("slider", name="Units").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("button", name="Update", exact=True)).to_be_disabled()
