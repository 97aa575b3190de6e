"""Sessions in the browser (README "Sessions"; docs/users/sessions.md): a new Owner, registered
through the API so that the demo account's sessions stay as the other tests leave them, signs
in from two browsers with different User-Agents. The first reaches Sessions through the account
menu by keyboard, sees both sessions with 'This browser' on its own, and signs out all other
sessions; the second's next load lands at /login, saying why. Axe on the open menu, the page
and the confirmation; screenshots in artifacts/."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e import conftest
from tests.e2e.conftest import ARTIFACTS, assert_no_axe_violations, sign_in

GRACE_EMAIL = "grace@acme-robotics.dev"  # the demo Admin (devstack/seed.py), same password

PASSWORD = "Sessions-e2e-2026!"
CHROME_ON_MAC = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0.0.0 Safari/537.36"
)
FIREFOX_ON_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
)


def _register(console_url: str, email: str) -> None:
    """A new account whose Owner is ``email``, address verified; the registration's own
    session (this script's) is signed out, so only the browsers' sessions are left."""
    with httpx.Client(base_url=console_url, timeout=10) as api:
        response = api.post(
            "/web/registration",
            json={
                "firstName": "Sasha",
                "lastName": "Sessions",
                "emailAddress": email,
                "organizationName": "Sessions Co",
                "newPassword": PASSWORD,
            },
        )
        assert response.status_code == 201, response.text
        api.headers["Authorization"] = f"Bearer {response.json()['accessToken']}"
        code = api.get("/dev/mailbox", params={"to": email}).json()[0]["code"]
        verified = api.post("/web/session/email-verification/confirm", json={"code": code})
        assert verified.status_code == 204, verified.text
        signed_out = api.post("/web/session/sign-out")
        assert signed_out.status_code == 204, signed_out.text


@contextmanager
def _browser_page(browser: Browser, console_url: str, user_agent: str) -> Iterator[Page]:
    """A page in a browser context of its own that says it is ``user_agent``; on the way out,
    as the ``page`` fixture does, it fails on a Content-Security-Policy violation."""
    context = browser.new_context(
        base_url=console_url, viewport={"width": 1280, "height": 800}, user_agent=user_agent
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        yield page
        recorded = page.evaluate("window.__cspViolations ?? []")
        assert not recorded, f"CSP violations on {page.url}: {recorded}"
    finally:
        context.close()


def test_sign_out_all_other_sessions_ends_the_other_browsers(
    browser: Browser, console_url: str
) -> None:
    email = f"sasha-{secrets.token_hex(3)}@sessions-{secrets.token_hex(3)}.com"
    _register(console_url, email)
    conftest.csp_errors.clear()
    ARTIFACTS.mkdir(exist_ok=True)

    with (
        _browser_page(browser, console_url, CHROME_ON_MAC) as laptop,
        _browser_page(browser, console_url, FIREFOX_ON_WINDOWS) as desktop,
    ):
        sign_in(laptop, email, PASSWORD)
        sign_in(desktop, email, PASSWORD)

        # The account menu, by keyboard: who is signed in opens it on its first item.
        who = laptop.get_by_test_id("account-menu")
        expect(who).to_have_attribute("aria-haspopup", "menu")
        who.focus()
        laptop.keyboard.press("Enter")
        menu = laptop.get_by_role("menu", name="Your account")
        expect(menu).to_be_visible()
        expect(who).to_have_attribute("aria-expanded", "true")
        sessions_item = menu.get_by_role("menuitem", name="Sessions")
        expect(sessions_item).to_be_focused()
        laptop.keyboard.press("ArrowDown")
        expect(menu.get_by_role("menuitem", name="Passkeys")).to_be_focused()
        laptop.keyboard.press("End")
        expect(menu.get_by_role("menuitem", name="Logout")).to_be_focused()
        laptop.screenshot(path=str(ARTIFACTS / "sessions_account_menu.png"))
        assert_no_axe_violations(laptop, "the open account menu")
        laptop.keyboard.press("Escape")
        expect(menu).to_be_hidden()
        expect(who).to_be_focused()
        laptop.keyboard.press("ArrowDown")
        expect(sessions_item).to_be_focused()
        laptop.keyboard.press("Enter")
        expect(laptop).to_have_url(re.compile(r"/sessions$"))
        expect(laptop).to_have_title("Sessions")
        expect(menu).to_be_hidden()

        # Both browsers, this one first and marked.
        rows = laptop.get_by_test_id("session-row")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_contain_text("Chrome 120 on macOS")
        expect(rows.nth(0)).to_contain_text("This browser")
        expect(rows.nth(0).get_by_role("link", name="Logout")).to_be_visible()
        expect(rows.nth(1)).to_contain_text("Firefox 133 on Windows 10")
        expect(rows.nth(1)).not_to_contain_text("This browser")
        for row in (rows.nth(0), rows.nth(1)):
            expect(row).to_contain_text("Password")
            expect(row).to_contain_text("127.0.0.1")
            expect(row).to_contain_text(re.compile(r"just now|1 minute ago"))
        laptop.screenshot(path=str(ARTIFACTS / "sessions_page.png"), full_page=True)
        assert_no_axe_violations(laptop, "/sessions")

        laptop.get_by_role("button", name="Sign out all other sessions").click()
        confirm = laptop.get_by_role("dialog", name="Sign out all other sessions")
        expect(confirm).to_contain_text("The other session will be signed out")
        laptop.screenshot(path=str(ARTIFACTS / "sessions_sign_out_others_dialog.png"))
        assert_no_axe_violations(laptop, "the sign-out confirmation")
        confirm.get_by_role("button", name="Sign out other sessions").click()
        expect(confirm).to_be_hidden()
        expect(laptop.get_by_role("status")).to_have_text("Signed out 1 other session.")
        expect(rows).to_have_count(1)
        expect(rows.nth(0)).to_contain_text("This browser")
        expect(laptop.get_by_role("button", name="Sign out all other sessions")).to_be_disabled()
        laptop.screenshot(path=str(ARTIFACTS / "sessions_after_sign_out.png"), full_page=True)

        # The other browser's next load: its session ended, /login says so.
        desktop.reload()
        expect(desktop).to_have_url(re.compile(r"/login\?next=%2Faccount$"))
        expect(desktop.get_by_role("alert")).to_have_text(
            "Your session has ended. Please sign in again."
        )

        # This browser goes on.
        laptop.reload()
        expect(laptop).to_have_url(re.compile(r"/sessions$"))
        expect(rows).to_have_count(1)

    assert not conftest.csp_errors, "CSP violations:\n" + "\n".join(conftest.csp_errors)


def test_an_owner_signs_a_member_out_everywhere_from_user_management(
    browser: Browser, console_url: str
) -> None:
    # The demo Owner and Admin: signing the Admin out ends only sessions this test started
    # (every test signs in afresh).
    conftest.csp_errors.clear()
    ARTIFACTS.mkdir(exist_ok=True)
    with (
        _browser_page(browser, console_url, CHROME_ON_MAC) as owner,
        _browser_page(browser, console_url, FIREFOX_ON_WINDOWS) as admin,
    ):
        sign_in(owner)
        sign_in(admin, GRACE_EMAIL)

        owner.goto("/users")
        grace = owner.get_by_role("row").filter(has_text="Grace Hopper")
        expect(owner.get_by_role("columnheader", name="Sessions")).to_be_visible()
        expect(grace.get_by_test_id("sessions-cell")).to_have_text(re.compile(r"^[1-9]\d*$"))
        owner.screenshot(path=str(ARTIFACTS / "sessions_user_management.png"), full_page=True)
        assert_no_axe_violations(owner, "/users with sessions")

        grace.get_by_role("button", name="Sign out Grace Hopper").click()
        confirm = owner.get_by_role("dialog", name="Sign out everywhere")
        expect(confirm).to_contain_text("Grace Hopper is signed out of every browser")
        confirm.get_by_role("button", name="Sign out").click()
        expect(confirm).to_be_hidden()
        expect(grace.get_by_test_id("sessions-cell")).to_have_text("0")
        expect(grace.get_by_role("button", name="Sign out Grace Hopper")).to_have_count(0)

        admin.reload()
        expect(admin).to_have_url(re.compile(r"/login\?next=%2Faccount$"))
        expect(admin.get_by_role("alert")).to_have_text(
            "Your session has ended. Please sign in again."
        )

    assert not conftest.csp_errors, "CSP violations:\n" + "\n".join(conftest.csp_errors)
