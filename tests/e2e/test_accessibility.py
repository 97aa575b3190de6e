"""Accessibility in the browser: axe-core finds nothing on any screen (the dialogs are checked
where their own tests open them: test_users, test_billing, test_sign_in_flows); the focus ring
is a solid outline on every kind of control; 'Skip to content' is the first Tab stop."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, assert_no_axe_violations, open_account_menu, sign_in


def test_public_screens_have_no_axe_violations(page: Page) -> None:
    page.goto("/login")
    expect(page.get_by_role("button", name="Sign in with Email")).to_be_visible()
    assert_no_axe_violations(page, "/login")
    page.goto("/registration")
    expect(page.get_by_role("button", name="Sign up", exact=True)).to_be_visible()
    assert_no_axe_violations(page, "/registration")
    page.goto("/login")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.get_by_role("button", name="Reset Password")).to_be_visible()
    assert_no_axe_violations(page, "forgot password")


def test_signed_in_screens_have_no_axe_violations(page: Page) -> None:
    sign_in(page)
    expect(page.get_by_test_id("usage-summary")).to_be_visible()
    assert_no_axe_violations(page, "/account")
    for link, heading, path in [
        ("User Management", "User Management", "/users"),
        ("Billing & Subscription", "Billing & Subscription", "/billing"),
        ("Activity", "Activity", "/activity"),
    ]:
        page.get_by_role("navigation", name="Main").get_by_role("link", name=link).click()
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        assert_no_axe_violations(page, path)
    open_account_menu(page).get_by_role("menuitem", name="Two-step sign-in").click()
    expect(page.get_by_role("button", name="Set up two-step sign-in")).to_be_visible()
    assert_no_axe_violations(page, "/two-step-sign-in")
    page.goto("/payment")
    expect(page.get_by_role("button", name="Update Payment Method")).to_be_visible()
    # The card field's frame is the card provider's (Stripe.js): only it is left out.
    assert_no_axe_violations(page, "/payment", exclude=['[data-testid="card-element"] iframe'])
    expect(page).to_have_url(re.compile("/payment"))


def test_skip_link_is_the_first_tab_stop_and_moves_focus_to_the_main_region(page: Page) -> None:
    sign_in(page)
    expect(page.get_by_test_id("usage-summary")).to_be_visible()
    page.reload()
    expect(page.get_by_test_id("usage-summary")).to_be_visible()
    skip = page.get_by_role("link", name="Skip to content")
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.screenshot(path=str(ARTIFACTS / "skip-link-focused.png"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("main")).to_be_focused()
    page.keyboard.press("Tab")  # the next stop is in the content, past the sidebar
    in_main = page.evaluate("document.querySelector('main').contains(document.activeElement)")
    assert in_main
    page.screenshot(path=str(ARTIFACTS / "focus-ring-after-skip.png"))


def test_focus_ring_is_a_solid_outline_on_every_kind_of_control(page: Page) -> None:
    """A 2px solid ring in the focus colour on a button, a text input, a link, a radio and a
    checkbox reached with the keyboard."""
    sign_in(page)
    page.get_by_role("link", name="User Management").click()
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()
    controls = {
        "button": page.get_by_role("button", name="+ Invite User"),
        "radio": page.get_by_role("radio", name=re.compile("^Email and password")),
        "link": page.get_by_role("link", name="Terms of Service"),
    }
    for name, control in controls.items():
        control.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")  # keyboard focus, so :focus-visible applies
        expect(control).to_be_focused()
        assert_focus_ring(page, name)
    page.get_by_role("button", name="+ Invite User").click()
    dialog = page.get_by_role("dialog", name="Invite User")
    dialog.get_by_label("First name").focus()
    assert_focus_ring(page, "text input")
    page.screenshot(path=str(ARTIFACTS / "focus-ring-text-input.png"))
    page.keyboard.press("Escape")
    page.get_by_role("link", name="Account Information").click()
    checkbox = page.get_by_role("checkbox").first
    checkbox.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    expect(checkbox).to_be_focused()
    assert_focus_ring(page, "checkbox")


def assert_focus_ring(page: Page, name: str) -> None:
    style = page.evaluate(
        """() => {
          const s = getComputedStyle(document.activeElement);
          return [s.outlineStyle, s.outlineWidth, s.outlineColor];
        }"""
    )
    assert style == ["solid", "2px", "rgb(55, 48, 163)"], f"{name}: {style}"
    page.screenshot(path=str(ARTIFACTS / f"focus-ring-{name.replace(' ', '-')}.png"))
