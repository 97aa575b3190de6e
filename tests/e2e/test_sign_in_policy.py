"""The account's sign-in policy in the browser (README "Security model"): a page that is open
when access ends goes to /login with the reason, at its next call or reload, and a person the
account removed, or a personal Google account on a company address, cannot auto-join it."""

from __future__ import annotations

import re
import secrets

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.conftest import (
    ARTIFACTS,
    google_account_in_api,
    require_google_sso_in_api,
    sign_in_on_hosted_ui,
    sign_in_with_google,
)

PASSWORD = "Sturdy-password-42!"
LOGIN = re.compile(r"/login(\?next=.*)?$")
ACCOUNT = re.compile(r"/account$")
SSO_LANDING = re.compile(r"/oauth/sso\?code=")


def _company(console_url: str, name: str) -> tuple[str, dict[str, str]]:
    """A new account of a new domain whose Google Owner requires Google SSO; returns the
    domain and the Owner's API headers."""
    domain = f"e2e-{secrets.token_hex(4)}.com"
    token = google_account_in_api(console_url, f"owner@{domain}", name)
    headers = {"Authorization": f"Bearer {token}"}
    require_google_sso_in_api(console_url, headers, domain)
    return domain, headers


def _join_choice(page: Page):  # type: ignore[no-untyped-def]
    return page.get_by_role("radio", name=re.compile("Join an existing account"))


def test_a_removed_member_is_sent_to_login_and_cannot_join_again(
    page: Page, console_url: str
) -> None:
    domain, owner = _company(console_url, "Removal Robotics")
    email = f"rem@{domain}"
    sign_in_with_google(page, email, "Rem", "Oved")
    expect(page).to_have_url(SSO_LANDING)
    expect(_join_choice(page)).to_be_checked()
    page.get_by_role("button", name="Join Account").click()
    expect(page).to_have_url(ACCOUNT)
    # Every read of the page done (its lazy panels load after it), so the click below makes
    # the next call, not one of those.
    page.wait_for_load_state("networkidle")

    users = httpx.get(f"{console_url}/web/account", headers=owner).json()["account"]["users"]
    member = next(u for u in users if u["email"] == email)
    removed = httpx.delete(f"{console_url}/web/users/{member['id']}", headers=owner)
    assert removed.status_code == 204, removed.text

    message = "You were removed from Removal Robotics. Ask an Owner or Admin to invite you again."
    # The page's next call (Billing's first read) is refused, and /login says why. (After a
    # reload it could not: removal deleted the pool user, so Cognito refuses the refresh token
    # without a reason.)
    page.get_by_role("link", name="Billing & Subscription").click()
    expect(page).to_have_url(LOGIN)
    expect(page.get_by_text(message)).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "sign_in_policy_removed_refused.png"), full_page=True)

    # Signing in with Google again offers the account with the reason, and no way in.
    sign_in_with_google(page, email, "Rem", "Oved")
    expect(page).to_have_url(SSO_LANDING)
    expect(page.get_by_text(message)).to_be_visible()
    expect(_join_choice(page)).to_be_disabled()
    expect(page.get_by_role("radio", name=re.compile("Create a new account"))).to_be_checked()
    expect(page.get_by_role("button", name="Join Account")).to_be_disabled()
    page.screenshot(path=str(ARTIFACTS / "sign_in_policy_removed_join.png"), full_page=True)


def test_a_password_user_is_sent_to_login_once_google_sso_is_required(
    page: Page, console_url: str
) -> None:
    domain = f"e2e-{secrets.token_hex(4)}.com"
    owner = {
        "Authorization": f"Bearer {google_account_in_api(console_url, f'gus@{domain}', 'Pw Co')}"
    }
    email = f"pat@{domain}"
    invited = httpx.post(
        f"{console_url}/web/users",
        headers=owner,
        json={"firstName": "Pat", "lastName": "Password", "email": email},
    )
    assert invited.status_code == 201, invited.text
    mail = httpx.get(f"{console_url}/dev/mailbox", params={"to": email}).json()
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(mail[0]["temporaryPassword"])
    page.get_by_role("button", name="Sign in with Email").click()
    page.get_by_placeholder("Password").fill(PASSWORD)
    page.get_by_role("button", name="Change Password").click()
    expect(page).to_have_url(ACCOUNT)

    require_google_sso_in_api(console_url, owner, domain)
    page.reload()
    expect(page).to_have_url(LOGIN)
    expect(page.get_by_text("This user must sign in with Google")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "sign_in_policy_sso_reload.png"), full_page=True)


def test_a_personal_google_account_on_a_company_address_cannot_join(
    page: Page, console_url: str
) -> None:
    domain, _ = _company(console_url, "Workspace Works")
    # No hosted domain: a personal Google account created on the company's address.
    sign_in_on_hosted_ui(page, "Sign in with Google", f"pers@{domain}", "Per", "Sonal")
    expect(page).to_have_url(SSO_LANDING)
    expect(page.get_by_role("radio", name=re.compile("Create a new account"))).to_be_checked()
    expect(_join_choice(page)).to_be_disabled()
    expect(page.get_by_text("Workspace Works")).to_have_count(0)
