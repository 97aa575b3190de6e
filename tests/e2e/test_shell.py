"""The walking skeleton in the browser: sign in as the demo user, see the shell, move between
the menu items, sign out."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from devstack.seed import DEMO_ACCOUNT, DEMO_EMAIL
from tests.e2e.conftest import open_account_menu, sign_in


def test_protected_route_sends_to_login_with_next(page: Page) -> None:
    page.goto("/users?extension=chrome")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Fusers&extension=chrome$"))
    expect(page).to_have_title("Login")
    expect(page.get_by_role("button", name="Sign in with Google")).to_be_visible()
    expect(page.get_by_role("button", name="Sign in with GitHub")).to_be_visible()
    expect(page.get_by_role("link", name="create your free account")).to_be_visible()


def test_login_validation_messages(page: Page) -> None:
    page.goto("/login")
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page.get_by_text("Email address is required")).to_be_visible()
    page.get_by_label("Email").fill("someone@example.com")
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page.get_by_text("Password is required")).to_be_visible()


def test_wrong_password_shows_the_providers_message(page: Page) -> None:
    page.goto("/login")
    page.get_by_label("Email").fill(DEMO_EMAIL)
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page.get_by_text("Incorrect username or password.")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/login"))


def test_demo_user_signs_in_navigates_and_signs_out(page: Page) -> None:
    sign_in(page)
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text(DEMO_ACCOUNT)
    expect(page.get_by_role("heading", name="Account Information")).to_be_visible()
    expect(page.get_by_test_id("api-key")).to_have_text(re.compile(r"^ak_…[0-9a-f]{4}$"))  # masked
    who = page.get_by_test_id("account-menu")
    expect(who).to_contain_text("Ada")
    expect(who).to_contain_text("Lovelace")
    expect(who).to_contain_text(DEMO_EMAIL)
    expect(page.get_by_role("link", name="Documentation")).to_be_visible()
    # SPEC 9 layout: sidebar 278px; content area between 820px and 1000px wide.
    sidebar = page.locator("aside").bounding_box()
    content = page.get_by_role("main").bounding_box()
    assert sidebar is not None and content is not None
    assert sidebar["width"] == 278
    assert 820 <= content["width"] <= 1000
    expect(page.get_by_role("link", name="Terms of Service")).to_be_visible()
    expect(page.get_by_role("link", name="Privacy Policy")).to_be_visible()

    page.get_by_role("link", name="User Management").click()
    expect(page).to_have_url(re.compile(r"/users$"))
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()
    expect(page.get_by_text("grace@acme-robotics.dev")).to_be_visible()

    page.get_by_role("link", name="Billing & Subscription").click()
    expect(page).to_have_url(re.compile(r"/billing$"))
    expect(page.get_by_role("heading", name="Billing & Subscription")).to_be_visible()

    page.get_by_role("link", name="Account Information").click()
    expect(page).to_have_url(re.compile(r"/account$"))

    open_account_menu(page).get_by_role("menuitem", name="Logout").click()
    expect(page).to_have_url(re.compile(r"/login"))
    page.goto("/account")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Faccount"))


def test_session_survives_a_reload_and_login_redirects_home(page: Page) -> None:
    sign_in(page)
    page.reload()
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text(DEMO_ACCOUNT)
    page.goto("/login")
    expect(page).to_have_url(re.compile(r"/account$"))


def test_device_id_redirects_home(page: Page) -> None:
    sign_in(page)
    page.goto("/users?deviceId=abc")
    expect(page).to_have_url(re.compile(r"/account$"))


def test_a_cold_load_asks_for_the_session_and_the_account_together(page: Page) -> None:
    """After a reload the refresh comes first; then GET /web/session and GET /web/account are
    in flight at the same time, not one after the other. In-app navigation back to Account
    Information asks for the account once at most, and not for the session."""
    sign_in(page)
    page.reload()
    expect(page.get_by_test_id("usage-summary")).to_be_visible()
    calls = page.evaluate(
        """() => Object.fromEntries(performance.getEntriesByType('resource')
             .map((e) => [new URL(e.name).pathname, [e.startTime, e.responseEnd]])
             .filter(([path]) => path.startsWith('/web/')))"""
    )
    refreshed = calls["/web/session/refresh"][1]
    session, account = calls["/web/session"], calls["/web/account"]
    assert session[0] >= refreshed and account[0] >= refreshed, calls
    assert account[0] < session[1], f"GET /web/account waited for GET /web/session: {calls}"

    page.get_by_role("link", name="User Management").click()
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.get_by_role("link", name="Account Information").click()
    expect(page.get_by_test_id("usage-summary")).to_be_visible()
    page.wait_for_load_state("networkidle")
    reads = [url for url in asked if re.search(r"/web/(session|account)$", url)]
    assert len(reads) <= 1 and not any(url.endswith("/web/session") for url in reads), asked
