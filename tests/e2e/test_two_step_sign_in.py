"""Two-step sign-in in the browser (README "Two-step sign-in"): setting it up from the
sidebar, signing in with a code, with a recovery code (which then no longer works), an
account's requirement forcing the set-up, and an Admin's reset. Codes come from pyotp, as an
authenticator app computes them from the key the console shows. Each test makes its own
account or users, so the demo account's sign-ins stay as they are."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pyotp
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import ARTIFACTS, assert_no_axe_violations, open_account_menu, sign_in

PASSWORD = "Two-step-e2e-2026!"
ACCOUNT = re.compile(r"/account$")
STEP_S = 30  # RFC 6238's time step
_used: dict[str, set[str]] = {}


def _code(secret: str) -> str:
    """A code the authenticator of ``secret`` shows now that was not used yet (a code works
    once, README "Two-step sign-in"): this step's, else the next step's (Cognito forgives
    one step of drift), else this step's again once the next step begins."""
    totp, used = pyotp.TOTP(secret), _used.setdefault(secret, set())
    while True:
        now = time.time()
        for code in (totp.at(now), totp.at(now + STEP_S)):
            if code not in used:
                used.add(code)
                return code
        time.sleep(STEP_S - now % STEP_S + 0.05)


def _email(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(3)}@two-step-{secrets.token_hex(3)}.com"


def _mail(console_url: str, to: str) -> dict[str, Any]:
    messages = httpx.get(f"{console_url}/dev/mailbox", params={"to": to}).json()
    assert messages, f"no mail to {to}"
    return messages[0]  # type: ignore[no-any-return]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _register(console_url: str, email: str) -> str:
    """A new account whose Owner is ``email`` (address verified); their access token."""
    response = httpx.post(
        f"{console_url}/web/registration",
        json={
            "firstName": "Olga",
            "lastName": "Owner",
            "emailAddress": email,
            "organizationName": "Two-Step Co",
            "newPassword": PASSWORD,
        },
    )
    assert response.status_code == 201, response.text
    token = str(response.json()["accessToken"])
    verified = httpx.post(
        f"{console_url}/web/session/email-verification/confirm",
        headers=_bearer(token),
        json={"code": _mail(console_url, email)["code"]},
    )
    assert verified.status_code == 204, verified.text
    return token


def _invite(console_url: str, owner_token: str, email: str, first: str, role: str) -> str:
    """Invite ``email`` and let them choose :data:`PASSWORD`; returns their user id."""
    invited = httpx.post(
        f"{console_url}/web/users",
        headers=_bearer(owner_token),
        json={"firstName": first, "lastName": "Tester", "email": email, "role": role},
    )
    assert invited.status_code == 201, invited.text
    temporary = _mail(console_url, email)["temporaryPassword"]
    challenge = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": email, "password": temporary}
    ).json()["challenge"]
    done = httpx.post(
        f"{console_url}/web/session/complete-new-password",
        json={"username": email, "session": challenge["session"], "newPassword": PASSWORD},
    )
    assert done.status_code == 200, done.text
    return str(invited.json()["user"]["id"])


def _set_up_in_api(console_url: str, token: str) -> tuple[str, list[str]]:
    """Set up two-step sign-in with ``token``; returns the key and the recovery codes."""
    secret = httpx.post(f"{console_url}/web/two-step-sign-in/setup", headers=_bearer(token)).json()[
        "secretCode"
    ]
    confirmed = httpx.post(
        f"{console_url}/web/two-step-sign-in/setup/confirm",
        headers=_bearer(token),
        json={"code": _code(secret)},
    )
    assert confirmed.status_code == 200, confirmed.text
    return secret, confirmed.json()["recoveryCodes"]


def _token(console_url: str, email: str) -> str:
    response = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": email, "password": PASSWORD}
    )
    return str(response.json()["tokens"]["accessToken"])


def _enter_password(page: Page, email: str) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in with Email").click()


def _set_up_in_browser(page: Page, done_label: str) -> tuple[str, list[str]]:
    """Read the key the page shows, as an authenticator app does from the QR code, confirm
    with its code; returns the key and the recovery codes shown."""
    key = page.get_by_test_id("two-step-secret")
    expect(key).to_be_visible()
    expect(page.get_by_role("img", name="QR code of your authenticator key")).to_be_visible()
    secret = key.inner_text().replace(" ", "")
    page.get_by_label("Authentication code").fill(_code(secret))
    page.get_by_role("button", name="Turn on two-step sign-in").click()
    codes = page.get_by_test_id("recovery-codes").get_by_role("listitem")
    expect(codes).to_have_count(10)
    assert_no_axe_violations(page, "the recovery codes")
    page.screenshot(path=str(ARTIFACTS / "two_step_recovery_codes.png"), full_page=True)
    shown = codes.all_inner_texts()
    page.get_by_role("button", name=done_label).click()
    return secret, shown


@contextmanager
def _other_browser(browser: Browser, console_url: str) -> Iterator[Page]:
    context = browser.new_context(base_url=console_url, viewport={"width": 1280, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


def test_set_up_from_the_sidebar_then_sign_in_with_a_code(page: Page, console_url: str) -> None:
    email = _email("sam")
    _register(console_url, email)
    sign_in(page, email, PASSWORD)
    open_account_menu(page).get_by_role("menuitem", name="Two-step sign-in").click()
    expect(page.get_by_role("heading", name="Two-step sign-in", level=1)).to_be_visible()
    page.get_by_role("button", name="Set up two-step sign-in").click()
    expect(page.get_by_test_id("two-step-secret")).to_be_visible()
    assert_no_axe_violations(page, "the set-up")
    page.screenshot(path=str(ARTIFACTS / "two_step_setup.png"), full_page=True)
    secret, _ = _set_up_in_browser(page, "Done")
    expect(page.get_by_test_id("two-step-status")).to_have_text("On")
    expect(page.get_by_test_id("recovery-codes-left")).to_have_text("10 of 10 left")

    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))
    _enter_password(page, email)
    expect(page.get_by_role("heading", name="Two-step sign-in")).to_be_visible()
    assert_no_axe_violations(page, "the two-step code mode")
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_text("Enter the 6-digit code from your authenticator app")).to_be_visible()
    page.get_by_label("Authentication code").fill("000000")
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_text("Invalid code received for user")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "two_step_code_mode.png"), full_page=True)
    page.get_by_label("Authentication code").fill(_code(secret))
    page.get_by_role("button", name="Verify").click()
    expect(page).to_have_url(ACCOUNT)


def _sign_in_with_code(page: Page, email: str, secret: str) -> None:
    _enter_password(page, email)
    page.get_by_label("Authentication code").fill(_code(secret))
    page.get_by_role("button", name="Verify").click()
    expect(page).to_have_url(ACCOUNT)


def test_a_recovery_code_signs_in_once_and_asks_for_a_new_authenticator(
    page: Page, console_url: str
) -> None:
    email = _email("rita")
    token = _register(console_url, email)
    _, codes = _set_up_in_api(console_url, token)
    _enter_password(page, email)
    page.get_by_role("button", name="Use a recovery code instead").click()
    page.get_by_label("Recovery code").fill(codes[4])
    page.get_by_role("button", name="Sign in with recovery code").click()
    # Whoever signs in with a recovery code has lost the app: a new one first.
    expect(page.get_by_role("heading", name="Set up two-step sign-in")).to_be_visible()
    assert_no_axe_violations(page, "the forced set-up")
    page.screenshot(path=str(ARTIFACTS / "two_step_forced_setup.png"), full_page=True)
    _, new_codes = _set_up_in_browser(page, "Continue")
    assert not set(new_codes) & set(codes)
    expect(page).to_have_url(ACCOUNT)

    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))
    _enter_password(page, email)
    page.get_by_role("button", name="Use a recovery code instead").click()
    page.get_by_label("Recovery code").fill(codes[4])
    page.get_by_role("button", name="Sign in with recovery code").click()
    expect(
        page.get_by_text("That recovery code is not right, or it was used already.")
    ).to_be_visible()


def test_the_accounts_requirement_forces_the_set_up(
    page: Page, browser: Browser, console_url: str
) -> None:
    owner = _email("olga")
    owner_token = _register(console_url, owner)
    secret, _ = _set_up_in_api(console_url, owner_token)
    member = _email("mo")
    _invite(console_url, owner_token, member, "Mo", "Member")

    with _other_browser(browser, console_url) as member_page:
        sign_in(member_page, member, PASSWORD)  # a session from before the requirement

        # The Owner signs in with a code and requires two-step sign-in in Security.
        _sign_in_with_code(page, owner, secret)
        page.get_by_role("link", name="User Management").click()
        box = page.get_by_role("checkbox", name="Require two-step sign-in")
        expect(box).not_to_be_checked()
        box.click()
        dialog = page.get_by_role("dialog", name="Require two-step sign-in")
        expect(dialog).to_contain_text("set it up at their next sign-in")
        assert_no_axe_violations(page, "the Require two-step sign-in dialog")
        dialog.get_by_role("button", name="Confirm").click()
        expect(dialog).to_be_hidden()
        expect(box).to_be_checked()
        page.screenshot(path=str(ARTIFACTS / "two_step_requirement.png"), full_page=True)

        # The member's open session ends; their next sign-in sets it up before anything.
        member_page.reload()
        expect(member_page).to_have_url(re.compile(r"/login"))
        _enter_password(member_page, member)
        expect(member_page.get_by_role("heading", name="Set up two-step sign-in")).to_be_visible()
        _set_up_in_browser(member_page, "Continue")
        expect(member_page).to_have_url(ACCOUNT)

    page.reload()
    row = page.get_by_role("row").filter(has_text=member)
    expect(row.get_by_test_id("two-step-cell")).to_have_text("On")


def test_an_admin_resets_a_members_two_step_sign_in(
    page: Page, browser: Browser, console_url: str
) -> None:
    owner_token = _register(console_url, _email("olga"))
    admin = _email("ada")
    member = _email("max")
    _invite(console_url, owner_token, admin, "Adam", "Admin")
    _invite(console_url, owner_token, member, "Max", "Member")
    _set_up_in_api(console_url, _token(console_url, member))

    sign_in(page, admin, PASSWORD)
    page.get_by_role("link", name="User Management").click()
    row = page.get_by_role("row").filter(has_text=member)
    expect(row.get_by_test_id("two-step-cell")).to_have_text("On")
    row.get_by_role("button", name="Reset two-step Max Tester").click()
    dialog = page.get_by_role("dialog", name="Reset two-step sign-in")
    expect(dialog).to_contain_text("They set up two-step sign-in again at their next sign-in.")
    assert_no_axe_violations(page, "the Reset two-step sign-in dialog")
    dialog.get_by_role("button", name="Reset").click()
    expect(dialog).to_be_hidden()
    expect(row.get_by_test_id("two-step-cell")).to_have_text("Off")
    page.screenshot(path=str(ARTIFACTS / "two_step_reset.png"), full_page=True)

    with _other_browser(browser, console_url) as member_page:
        _enter_password(member_page, member)
        expect(member_page.get_by_role("heading", name="Set up two-step sign-in")).to_be_visible()
        _set_up_in_browser(member_page, "Continue")
        expect(member_page).to_have_url(ACCOUNT)
