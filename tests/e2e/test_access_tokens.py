"""Access tokens in the browser (README "Automation"; docs/integrators/access-tokens.md): the
demo Owner creates a token with two scopes on /access-tokens and copies its secret, shown this
once; a script calls the API with it as the command line would; after a reload the list shows
its last use and address; revoked, the same call is refused (401 AccessTokenRevoked)."""

from __future__ import annotations

import re
import secrets

import httpx
from playwright.sync_api import Page, expect

from devstack.seed import DEMO_ACCOUNT
from tests.e2e.conftest import ARTIFACTS, assert_no_axe_violations, sign_in

SECRET = re.compile(r"^cat_[0-9A-Za-z]{36}$")


def call_as_a_script(console_url: str, secret: str) -> httpx.Response:
    """GET /web/account with the token, as the command line (``CONSOLE_TOKEN``) would."""
    return httpx.get(
        f"{console_url}/web/account", headers={"Authorization": f"Bearer {secret}"}, timeout=10
    )


def test_the_owner_creates_uses_and_revokes_a_token(page: Page, console_url: str) -> None:
    name = f"Nightly usage report {secrets.token_hex(3)}"
    sign_in(page)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Access tokens").click()
    expect(page).to_have_url(re.compile(r"/access-tokens$"))
    expect(page).to_have_title("Access tokens")
    expect(page.get_by_role("switch", name="Access tokens work in this account")).to_be_checked()

    page.get_by_role("button", name="Create token").first.click()
    dialog = page.get_by_role("dialog", name="Create access token")
    dialog.get_by_label("Name").fill(name)
    dialog.get_by_label("Expiration").select_option(label="90 days")
    dialog.get_by_role("checkbox", name="Account: read (account:read)").check()
    dialog.get_by_role("checkbox", name="Usage: read (usage:read)").check()
    expect(dialog.get_by_test_id("expiry-summary")).to_contain_text("Works through")
    page.screenshot(path=str(ARTIFACTS / "access_tokens_create_dialog.png"))
    assert_no_axe_violations(page, "the create dialog")
    dialog.get_by_role("button", name="Create token").click()

    # The secret, once, with Copy.
    created = page.get_by_role("dialog", name="Access token created")
    expect(created).to_contain_text("Copy the token now: you won't see it again.")
    shown = created.get_by_test_id("access-token-secret")
    expect(shown).to_have_text(SECRET)
    secret = shown.inner_text()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=console_url)
    created.get_by_role("button", name="Copy access token").click()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    page.screenshot(path=str(ARTIFACTS / "access_tokens_secret_dialog.png"))
    created.get_by_role("button", name="Done").click()
    expect(created).to_be_hidden()
    expect(page.get_by_text(secret)).to_have_count(0)

    row = page.get_by_test_id("access-token-row").filter(has_text=name)
    expect(row).to_contain_text(f"cat_…{secret[-4:]}")
    expect(row).to_contain_text("account:read")
    expect(row).to_contain_text("usage:read")
    expect(row.get_by_test_id("access-token-last-used")).to_have_text("Never")

    # A script calls the API with it.
    answer = call_as_a_script(console_url, secret)
    assert answer.status_code == 200, answer.text
    assert answer.json()["account"]["name"] == DEMO_ACCOUNT

    page.reload()
    row = page.get_by_test_id("access-token-row").filter(has_text=name)
    last_used = row.get_by_test_id("access-token-last-used")
    expect(last_used).to_contain_text(re.compile(r"just now|1 minute ago"))
    expect(last_used).to_contain_text("127.0.0.1")
    expect(row).to_contain_text("Active")
    page.screenshot(path=str(ARTIFACTS / "access_tokens_page.png"), full_page=True)
    assert_no_axe_violations(page, "/access-tokens")

    # Revoked, the same call is refused.
    row.get_by_role("button", name=f"Revoke {name}").click()
    confirm = page.get_by_role("dialog", name="Revoke access token")
    expect(confirm).to_contain_text(name)
    confirm.get_by_role("button", name="Revoke").click()
    expect(confirm).to_be_hidden()
    expect(row).to_contain_text("Revoked")
    expect(row.get_by_role("button", name=f"Revoke {name}")).to_have_count(0)

    refused = call_as_a_script(console_url, secret)
    assert refused.status_code == 401, refused.text
    assert refused.json()["code"] == "AccessTokenRevoked"
