"""Email ownership in the browser: a registrant sees the verification banner on every screen
until they enter the code Cognito emailed them (read here from the dev mailbox)."""

from __future__ import annotations

import re
import secrets

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS


def test_register_then_enter_the_emailed_code(page: Page, console_url: str) -> None:
    email = f"vera@verify-{secrets.token_hex(4)}.com"
    page.goto("/registration")
    page.get_by_label("First name").fill("Vera")
    page.get_by_label("Last name").fill("Fied")
    page.get_by_label("Work email").fill(email)
    page.get_by_label("Company name").fill("Verified Labs")
    page.get_by_label("Password").fill("Sturdy-password-42!")
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(page).to_have_url(re.compile(r"/account$"))

    banner = page.get_by_test_id("email-verification-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(f"We sent a code to {email}")
    page.get_by_role("link", name="User Management").click()
    expect(banner).to_be_visible()  # on every screen

    banner.get_by_role("button", name="Enter code").click()
    banner.get_by_role("button", name="Verify").click()
    expect(banner.get_by_role("alert")).to_have_text("Enter the code from the email.")
    banner.get_by_label("Verification code").fill("000000")
    banner.get_by_role("button", name="Verify").click()
    expect(banner.get_by_role("alert")).to_contain_text("That code is not right")
    page.screenshot(path=str(ARTIFACTS / "email_verification_banner.png"))

    messages = httpx.get(f"{console_url}/dev/mailbox", params={"to": email}).json()
    banner.get_by_label("Verification code").fill(messages[0]["code"])
    banner.get_by_role("button", name="Verify").click()
    expect(banner).to_be_hidden()
    page.reload()
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text("Verified Labs")
    expect(page.get_by_test_id("email-verification-banner")).to_have_count(0)
