"""Billing & Subscription and /payment in the browser against the dev stack (localstripe's
Stripe.js card element and the shim of devstack/stripe_shim.py, its webhooks applied by the
dev stack's worker): add a card, a declined card, the charge preview, upgrades, a plan set to
end with the period (by Stripe, in Activity), a renewal that fails (past due in Invoices and
the sidebar) and is paid, removing the card.

Each test leaves the demo account as it found it (no card, 0 units), since the dev stack is
shared by every e2e test of a run."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, DEMO_EMAIL, assert_no_axe_violations, sign_in

# Attaches, then every charge is declined (https://docs.stripe.com/testing#declined-payments).
DECLINES_CHARGES_LATER = "4000000000000341"


def fill_card(page: Page, number: str) -> None:
    """localstripe's card element: five plain inputs named by their placeholders."""
    field = page.get_by_test_id("card-element")
    field.get_by_placeholder("number", exact=True).fill(number)
    field.get_by_placeholder("exp_month").fill("08")
    field.get_by_placeholder("exp_year").fill("31")
    field.get_by_placeholder("cvc").fill("123")
    field.get_by_placeholder("postal_code").fill("94107")


def set_plan(page: Page, units: int, screenshot: str | None = None) -> str:
    """Move the slider with the keyboard, then Update and Confirm once the charge preview
    shows; returns the preview's text as it was shown."""
    slider = page.get_by_role("slider", name="Units")
    slider.focus()
    page.keyboard.press("Home")
    for _ in range(units):
        page.keyboard.press("ArrowRight")
    expect(slider).to_have_value(str(units))
    page.get_by_role("button", name="Update", exact=True).click()
    dialog = page.get_by_role("dialog", name="Update Subscription")
    expect(dialog).to_be_visible()
    preview = dialog.get_by_test_id("charge-preview")
    expect(preview).to_be_visible()
    shown = preview.inner_text()
    assert_no_axe_violations(page, "the Update Subscription dialog")
    if screenshot:
        page.screenshot(path=str(ARTIFACTS / screenshot))
    dialog.get_by_role("button", name="Confirm").click()
    expect(dialog).to_be_hidden()
    return shown


def save_card(page: Page) -> None:
    page.get_by_role("button", name="Update Payment Method").click()
    expect(
        page.get_by_text(re.compile("successfully modified your payment method"))
    ).to_be_visible()


def end_billing_period(page: Page) -> None:
    """The dev stack's stand-in ends the period now; Stripe's webhook updates the console."""
    response = page.request.post("/dev/billing/end-period", params={"email": DEMO_EMAIL})
    assert response.ok, response.text()


def test_card_plan_and_removal(page: Page) -> None:
    sign_in(page)
    page.get_by_role("navigation", name="Main").get_by_role(
        "link", name="Billing & Subscription"
    ).click()
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

    shown = set_plan(page, 3, "billing_preview_start.png")
    assert "Charged today for the first month\n$60.00" in shown, shown
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

    # An upgrade is charged now for the rest of the cycle, as the preview said.
    shown = set_plan(page, 5, "billing_preview_upgrade.png")
    assert "New monthly price\n$100.00" in shown, shown
    charged = re.search(r"rest of this billing cycle\n(\$[\d.]+)", shown)
    assert charged, shown
    expect(invoices.get_by_role("cell", name=charged.group(1))).to_be_visible()
    expect(page.get_by_test_id("plan-allowance")).to_have_text("5,000 requests")

    # A paid plan keeps its card: the refusal shows in the banner, the card stays.
    payment_panel.get_by_role("button", name="Remove").click()
    expect(
        page.get_by_text("Set your plan to 0 units or add another card before removing this one.")
    ).to_be_visible()
    expect(payment_panel.get_by_role("img", name="Visa")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "billing_card_removal_refused.png"))

    # 0 units: the plan ends with the period paid for; until then the units stay. Undo works.
    shown = set_plan(page, 0, "billing_preview_cancel.png")
    assert "no refunds or credits for partial months" in shown, shown
    scheduled = page.get_by_text(re.compile(r"^Changes to 0 units on \w{3} \d{1,2}, \d{4}$"))
    expect(scheduled).to_be_visible()
    expect(page.get_by_test_id("plan-allowance")).to_have_text("5,000 requests")
    page.screenshot(path=str(ARTIFACTS / "billing_scheduled_end.png"), full_page=True)
    page.get_by_role("button", name="Undo").click()
    expect(scheduled).to_be_hidden()
    set_plan(page, 0)
    expect(scheduled).to_be_visible()

    # Nothing renews any more: the card may go. The period ends: the free plan.
    payment_panel.get_by_role("button", name="Remove").click()
    expect(payment_panel.get_by_text("No payment method added")).to_be_visible()
    end_billing_period(page)
    expect_allowance_after_webhook(page, "100 requests")
    expect(scheduled).to_be_hidden()
    page.get_by_role("slider", name="Units").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("button", name="Update", exact=True)).to_be_disabled()

    # Stripe ended the plan, not a user: the Activity page says so.
    page.goto("/activity?action=plan.units_changed")
    newest = page.get_by_role("table", name="Activity").locator("tbody tr").first
    expect(newest.locator("td").nth(1)).to_have_text("Stripe")
    expect(newest.locator("td").nth(2)).to_contain_text("Changed the plan")
    expect(newest.locator("td").nth(3)).to_contain_text("units: 5 → 0")
    expect(newest.locator("td").nth(4)).to_have_text("—")
    page.screenshot(path=str(ARTIFACTS / "activity_stripe_ended_the_plan.png"), full_page=True)


def expect_allowance_after_webhook(page: Page, allowance: str) -> None:
    """Stripe's webhook reaches the API a moment after the change: reload until it shows."""
    for _ in range(40):
        page.reload()
        expect(page.get_by_test_id("plan-allowance")).to_be_visible()
        if page.get_by_test_id("plan-allowance").inner_text() == allowance:
            return
        page.wait_for_timeout(250)
    expect(page.get_by_test_id("plan-allowance")).to_have_text(allowance)


def test_a_failed_renewal_is_past_due_until_paid(page: Page) -> None:
    sign_in(page)
    page.goto("/payment")
    fill_card(page, DECLINES_CHARGES_LATER)
    page.get_by_role("button", name="Update Payment Method").click()
    expect(
        page.get_by_text(re.compile("successfully modified your payment method"))
    ).to_be_visible()
    page.goto("/billing")
    # The first month is declined at once: nothing starts.
    page.get_by_role("slider", name="Units").focus()
    set_plan(page, 1)
    expect(page.get_by_role("alert")).to_have_text("Your card was declined.")

    # With a good card the plan starts; then the card on file declines the renewal.
    page.goto("/payment")
    fill_card(page, "4242424242424242")
    page.get_by_role("button", name="Update Payment Method").click()
    expect(
        page.get_by_text(re.compile("successfully modified your payment method"))
    ).to_be_visible()
    page.goto("/billing")
    set_plan(page, 2)
    page.goto("/payment")
    fill_card(page, DECLINES_CHARGES_LATER)
    page.get_by_role("button", name="Update Payment Method").click()
    expect(
        page.get_by_text(re.compile("successfully modified your payment method"))
    ).to_be_visible()
    end_billing_period(page)

    page.goto("/billing")
    past_due = page.get_by_text("A payment of $40.00 is past due")
    for _ in range(40):
        if past_due.is_visible():
            break
        page.wait_for_timeout(250)
        page.reload()
    expect(past_due).to_be_visible()
    expect(page.get_by_test_id("sidebar-past-due")).to_have_text("$40.00 past due")
    # The renewal that failed is past due in Invoices; the month before was paid.
    invoices = page.get_by_role("region", name="Invoices")
    renewal = invoices.get_by_role("row").filter(has_text="Past due")
    expect(renewal).to_have_count(1)
    expect(renewal.get_by_role("cell", name="$40.00")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "billing_past_due.png"), full_page=True)
    page.get_by_role("button", name="Pay now").click()
    expect(page.get_by_role("alert")).to_have_text("Your card was declined.")

    page.get_by_role("link", name="Use another card").click()
    fill_card(page, "4242424242424242")
    page.get_by_role("button", name="Update Payment Method").click()
    expect(
        page.get_by_text(re.compile("successfully modified your payment method"))
    ).to_be_visible()
    page.goto("/billing")
    page.get_by_role("button", name="Pay now").click()
    expect(past_due).to_be_hidden()
    expect(page.get_by_test_id("sidebar-past-due")).to_be_hidden()
    expect(renewal).to_have_count(0)

    # The demo account as it was: the plan ends with the period, then the card goes.
    set_plan(page, 0)
    end_billing_period(page)
    expect_allowance_after_webhook(page, "100 requests")
    page.get_by_role("region", name="Payment Method").get_by_role("button", name="Remove").click()
    expect(page.get_by_text("No payment method added")).to_be_visible()
