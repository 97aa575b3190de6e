"""User Management and Google SSO in the browser."""

from __future__ import annotations

import re
import secrets

import httpx
from playwright.sync_api import Browser, Page, expect

from devstack.seed import DEMO_GOOGLE_EMAIL
from tests.e2e.conftest import (
    assert_no_axe_violations,
    set_role,
    sign_in,
    sign_in_with_google,
    verify_domain_in_console,
)

NEW_PASSWORD = "Invited-user-2026!"


def _users_row(page: Page, text: str):  # type: ignore[no-untyped-def]
    return page.get_by_role("row").filter(has_text=text)


def test_invite_sign_in_edit_and_delete_a_user(
    page: Page, browser: Browser, console_url: str
) -> None:
    email = f"alan-{secrets.token_hex(3)}@acme-robotics.dev"
    sign_in(page)
    page.get_by_role("link", name="User Management").click()
    page.get_by_role("button", name="+ Invite User").click()
    dialog = page.get_by_role("dialog", name="Invite User")
    expect(dialog).to_be_visible()
    assert_no_axe_violations(page, "the Invite User dialog")
    dialog.get_by_label("First name").fill("Alan")
    dialog.get_by_label("Last name").fill("Turing")
    dialog.get_by_label("Email").fill(email)
    dialog.get_by_role("button", name="Invite User").click()
    expect(dialog).to_be_hidden()
    expect(_users_row(page, email)).to_contain_text("Alan Turing")

    # The invited user signs in with the emailed temporary password in another browser.
    mail = httpx.get(f"{console_url}/dev/mailbox", params={"to": email}).json()
    temporary = mail[0]["temporaryPassword"]
    other = browser.new_context(base_url=console_url)
    try:
        invited = other.new_page()
        invited.goto("/login")
        invited.get_by_label("Email").fill(email)
        invited.get_by_label("Password").fill(temporary)
        invited.get_by_role("button", name="Sign in with Email").click()
        invited.get_by_placeholder("Password").fill(NEW_PASSWORD)
        invited.get_by_role("button", name="Change Password").click()
        expect(invited).to_have_url(re.compile(r"/account$"))
        expect(invited.get_by_test_id("account-menu")).to_contain_text(email)
    finally:
        other.close()

    # Edit: the email is read-only.
    page.get_by_role("button", name="Edit Alan Turing").click()
    dialog = page.get_by_role("dialog", name="Edit User")
    expect(dialog.get_by_label("Email")).to_have_attribute("readonly", "")
    assert_no_axe_violations(page, "the Edit User dialog")
    dialog.get_by_label("First name").fill("Alan M.")
    dialog.get_by_role("button", name="Save").click()
    expect(_users_row(page, email)).to_contain_text("Alan M. Turing")

    # Delete after the confirmation.
    page.get_by_role("button", name="Delete Alan M. Turing").click()
    dialog = page.get_by_role("dialog", name="Delete User")
    expect(dialog).to_contain_text("This will delete Alan M. Turing from your account.")
    assert_no_axe_violations(page, "the Delete User dialog")
    dialog.get_by_role("button", name="Cancel").click()
    expect(_users_row(page, email)).to_be_visible()
    page.get_by_role("button", name="Delete Alan M. Turing").click()
    page.get_by_role("dialog", name="Delete User").get_by_role("button", name="Delete").click()
    expect(_users_row(page, email)).to_have_count(0)


def test_password_user_sees_why_google_sso_is_disabled(page: Page) -> None:
    sign_in(page)
    page.get_by_role("link", name="User Management").click()
    google = page.get_by_role("radio", name=re.compile("^Google"))
    expect(google).to_be_disabled()
    google.locator("xpath=ancestor::span[@tabindex]").hover()
    expect(page.get_by_role("tooltip")).to_have_text(
        "You must have a Google SSO auth type to require Google SSO."
    )
    saml = page.get_by_role("radio", name=re.compile("^SAML"))
    expect(saml).to_be_disabled()
    saml.locator("xpath=ancestor::span[@tabindex]").hover()
    expect(page.get_by_role("tooltip")).to_have_text(
        "Verify your company's domain under Domains below before setting up SAML single sign-on."
    )
    expect(page.get_by_role("radio", name=re.compile("^Email and password"))).to_be_checked()


def test_google_user_turns_google_sso_on_and_off(page: Page, console_url: str) -> None:
    # Katherine is a Member in the demo account, and Members cannot change SSO.
    set_role(console_url, DEMO_GOOGLE_EMAIL, "Admin")
    try:
        _turn_google_sso_on_and_off(page, console_url)
    finally:
        set_role(console_url, DEMO_GOOGLE_EMAIL, "Member")


def _turn_google_sso_on_and_off(page: Page, console_url: str) -> None:
    sign_in_with_google(page, DEMO_GOOGLE_EMAIL, "Katherine", "Johnson")
    expect(page).to_have_url(re.compile(r"/account$"))
    page.get_by_role("link", name="User Management").click()
    # Google SSO needs the domain proved by DNS first.
    verify_domain_in_console(page, console_url, "acme-robotics.dev")

    page.get_by_role("radio", name=re.compile("^Google")).click()  # opens the confirmation
    dialog = page.get_by_role("dialog", name="Enable Google Single Sign-on")
    expect(dialog).to_contain_text("acme-robotics.dev")
    assert_no_axe_violations(page, "the Enable Google Single Sign-on dialog")
    dialog.get_by_role("button", name="Confirm").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("radio", name=re.compile("^Google"))).to_be_checked()
    invite = page.get_by_role("button", name="+ Invite User")
    expect(invite).to_be_disabled()
    invite.locator("xpath=..").hover()
    expect(page.get_by_role("tooltip")).to_have_text(
        "Instruct other users to sign in with SSO to join the account."
    )

    page.get_by_role("radio", name=re.compile("^Email and password")).click()
    dialog = page.get_by_role("dialog", name="Disable Google Single Sign-on")
    expect(dialog).to_contain_text("Sign In with Google")
    dialog.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("radio", name=re.compile("^Email and password"))).to_be_checked()
    expect(page.get_by_role("button", name="+ Invite User")).to_be_enabled()
