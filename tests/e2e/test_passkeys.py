"""Passkeys in the browser (docs/users/passkeys.md): a new Owner, registered through the API,
signs in with the password at ``http://localhost:PORT`` (the relying party is ``localhost``
when the dev stack's public URL is an IP address, docs/contributors/dev-stack.md "Passkeys"),
adds a passkey on the Passkeys page with Chromium's virtual authenticator (DevTools protocol
``WebAuthn``), renames it and removes it; then, with a passkey again, logs out, signs in with
it and lands in the console, and once it is removed the passkey sign-in is refused. Axe on the
page, the add dialog and the login page; screenshots in artifacts/."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from urllib.parse import urlparse

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import ARTIFACTS, assert_no_axe_violations

PASSWORD = "Passkeys-e2e-2026!"


def _localhost(console_url: str) -> str:
    """The same dev stack at ``localhost``: browsers refuse an IP address as a relying party."""
    return f"http://localhost:{urlparse(console_url).port}"


def _register(console_url: str, email: str) -> None:
    """A new account whose Owner is ``email``, address verified; the script's own session ends."""
    with httpx.Client(base_url=console_url, timeout=10) as api:
        response = api.post(
            "/web/registration",
            json={
                "firstName": "Pat",
                "lastName": "Passkey",
                "emailAddress": email,
                "organizationName": "Passkeys Co",
                "newPassword": PASSWORD,
            },
        )
        assert response.status_code == 201, response.text
        api.headers["Authorization"] = f"Bearer {response.json()['accessToken']}"
        code = api.get("/dev/mailbox", params={"to": email}).json()[0]["code"]
        verified = api.post("/web/session/email-verification/confirm", json={"code": code})
        assert verified.status_code == 204, verified.text
        assert api.post("/web/session/sign-out").status_code == 204


@pytest.fixture
def local_page(browser: Browser, console_url: str) -> Iterator[Page]:
    """A page at ``http://localhost:PORT`` with a virtual platform authenticator that verifies
    its user (a passkey on this device's screen lock)."""
    context = browser.new_context(
        base_url=_localhost(console_url), viewport={"width": 1280, "height": 800}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    try:
        yield page
        recorded = page.evaluate("window.__cspViolations ?? []")
        assert not recorded, f"CSP violations on {page.url}: {recorded}"
    finally:
        context.close()


def test_add_rename_and_remove_a_passkey(local_page: Page, console_url: str) -> None:
    page = local_page
    email = f"pat-{secrets.token_hex(3)}@passkeys-{secrets.token_hex(3)}.com"
    _register(console_url, email)
    ARTIFACTS.mkdir(exist_ok=True)

    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page).to_have_url(re.compile(r"/account$"))

    page.get_by_test_id("account-menu").click()
    page.get_by_role("menu", name="Your account").get_by_role("menuitem", name="Passkeys").click()
    expect(page).to_have_url(re.compile(r"/passkeys$"))
    expect(page.get_by_text("You have no passkeys yet.")).to_be_visible()

    page.get_by_role("button", name="Add a passkey").click()
    dialog = page.get_by_role("dialog", name="Add a passkey")
    dialog.get_by_label("Password").fill(PASSWORD)
    assert_no_axe_violations(page, "the add dialog")
    page.screenshot(path=str(ARTIFACTS / "passkeys-add-dialog.png"))
    dialog.get_by_role("button", name="Continue").click()
    named = page.get_by_role("dialog", name="Name your passkey")
    expect(named.get_by_label("Name")).to_have_value("Chrome on Linux")
    named.get_by_label("Name").fill("Work laptop")
    named.get_by_role("button", name="Add passkey").click()
    expect(page.get_by_role("status")).to_have_text(
        "Added Work laptop. You can sign in with it now."
    )
    row = page.get_by_test_id("passkey-row")
    expect(row).to_have_count(1)
    expect(row.get_by_role("cell").nth(2)).to_have_text("Never")
    assert_no_axe_violations(page, "the Passkeys page")
    page.screenshot(path=str(ARTIFACTS / "passkeys-page.png"), full_page=True)

    row.get_by_role("button", name="Rename Work laptop").click()
    rename = page.get_by_role("dialog", name="Rename passkey")
    rename.get_by_label("Name").fill("Laptop")
    rename.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Renamed to Laptop.")

    row.get_by_role("button", name="Remove Laptop").click()
    confirm = page.get_by_role("dialog", name="Remove this passkey")
    confirm.get_by_role("button", name="Remove").click()
    expect(page.get_by_role("status")).to_have_text("Removed Laptop.")
    expect(page.get_by_text("You have no passkeys yet.")).to_be_visible()


def _add_passkey(page: Page, email: str, name: str) -> None:
    """Sign in with the password and add a passkey called ``name`` on the Passkeys page."""
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page).to_have_url(re.compile(r"/account$"))
    page.goto("/passkeys")
    page.get_by_role("button", name="Add a passkey").click()
    dialog = page.get_by_role("dialog", name="Add a passkey")
    dialog.get_by_label("Password").fill(PASSWORD)
    dialog.get_by_role("button", name="Continue").click()
    named = page.get_by_role("dialog", name="Name your passkey")
    named.get_by_label("Name").fill(name)
    named.get_by_role("button", name="Add passkey").click()
    expect(page.get_by_test_id("passkey-row")).to_have_count(1)


def _sign_in_with_passkey(page: Page, email: str) -> None:
    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Sign in with a passkey").click()


def test_sign_in_with_a_passkey_until_it_is_removed(local_page: Page, console_url: str) -> None:
    page = local_page
    email = f"pat-{secrets.token_hex(3)}@passkeys-{secrets.token_hex(3)}.com"
    _register(console_url, email)
    ARTIFACTS.mkdir(exist_ok=True)
    _add_passkey(page, email, "Work laptop")

    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))
    page.get_by_label("Email").fill(email)
    assert_no_axe_violations(page, "the login page")
    page.screenshot(path=str(ARTIFACTS / "passkeys-login.png"), full_page=True)
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page).to_have_url(re.compile(r"/account$"))

    page.goto("/passkeys")
    row = page.get_by_test_id("passkey-row")
    expect(row.get_by_role("cell").nth(2)).to_have_text("just now")
    row.get_by_role("button", name="Remove Work laptop").click()
    page.get_by_role("dialog", name="Remove this passkey").get_by_role(
        "button", name="Remove"
    ).click()
    expect(page.get_by_text("You have no passkeys yet.")).to_be_visible()

    _sign_in_with_passkey(page, email)
    expect(page.get_by_role("alert")).to_contain_text("There is no passkey for this email address")
    expect(page).to_have_url(re.compile(r"/login"))
