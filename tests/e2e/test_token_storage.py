"""Where the browser keeps the session: no token is readable by script, a reload
restores the session through the httpOnly refresh cookie, and sign-out is final."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from devstack.seed import DEMO_ACCOUNT
from tests.e2e.conftest import open_account_menu, sign_in

_STORAGE = """() => {
  const dump = (s) => Object.fromEntries(Object.keys(s).map((k) => [k, s.getItem(k)]));
  return { local: dump(localStorage), session: dump(sessionStorage), cookie: document.cookie };
}"""


def _bearer_tokens(page: Page) -> list[str]:
    """The access tokens the page sent to the API while the callback runs."""
    seen: list[str] = []
    page.on(
        "request",
        lambda r: (
            seen.append(r.headers["authorization"].removeprefix("Bearer "))
            if "authorization" in r.headers
            else None
        ),
    )
    return seen


def test_no_token_is_readable_by_script_and_a_reload_stays_signed_in(page: Page) -> None:
    tokens = _bearer_tokens(page)
    sign_in(page)
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text(DEMO_ACCOUNT)
    assert tokens, "the console sent no bearer token"
    stored = page.evaluate(_STORAGE)
    text = repr(stored)
    for token in set(tokens):
        assert token not in text
    assert "refresh_token" not in stored["cookie"]
    assert not stored["session"]
    # What localStorage keeps is the timestamped note that a session exists (SPEC 9).
    assert set(stored["local"]) <= {"console.session"}
    refresh_cookie = next(c for c in page.context.cookies() if c["name"] == "refresh_token")
    assert refresh_cookie["httpOnly"] is True
    assert refresh_cookie["sameSite"] == "Strict"
    assert refresh_cookie["path"] == "/web/session"

    page.reload()
    expect(page).to_have_url(re.compile(r"/account$"))
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text(DEMO_ACCOUNT)


def test_sign_out_then_back_shows_the_login_screen(page: Page) -> None:
    sign_in(page)
    page.get_by_role("link", name="User Management").click()
    expect(page).to_have_url(re.compile(r"/users$"))
    open_account_menu(page).get_by_test_id("logout-link").click()
    expect(page).to_have_url(re.compile(r"/login"))
    assert not [c for c in page.context.cookies() if c["name"] == "refresh_token"]
    page.go_back()
    expect(page).to_have_url(re.compile(r"/login\?next="))
    expect(page.get_by_role("button", name="Sign in with Email")).to_be_visible()
    page.reload()
    expect(page).to_have_url(re.compile(r"/login"))
