"""Sign-in, password reset, registration and Google/GitHub sign-in in the browser against the
dev stack. Every user here is new (fresh emails and domains); the demo
account is only read."""

from __future__ import annotations

import re
import secrets
from urllib.parse import parse_qs, urlparse

import httpx
from playwright.sync_api import Browser, Page, expect

from devstack.seed import DEMO_EMAIL
from tests.e2e.conftest import (
    ARTIFACTS,
    assert_no_axe_violations,
    google_account_in_api,
    require_google_sso_in_api,
    sign_in_on_hosted_ui,
    verify_domain_in_console,
)

PASSWORD = "Sturdy-password-42!"
NEW_PASSWORD = "Even-sturdier-pass-7!"
PASSWORD_RULE = (
    "Password must be at least twelve characters long and contain at least one number and "
    "one special character"
)
ACCOUNT = re.compile(r"/account$")


def _domain() -> str:
    return f"e2e-{secrets.token_hex(4)}.com"


def _register_in_api(console_url: str, email: str, organization: str = "Seeded Co") -> str:
    """Register through the API and verify the email address; returns the new user's access
    token."""
    response = httpx.post(
        f"{console_url}/web/registration",
        json={
            "firstName": "Api",
            "lastName": "Made",
            "emailAddress": email,
            "organizationName": organization,
            "newPassword": PASSWORD,
        },
    )
    assert response.status_code == 201, response.text
    token = str(response.json()["accessToken"])
    # The registrant proves the address with the code Cognito emailed (inviting waits for it).
    code = _latest_mail(console_url, email)["code"]
    verified = httpx.post(
        f"{console_url}/web/session/email-verification/confirm",
        headers={"Authorization": f"Bearer {token}"},
        json={"code": code},
    )
    assert verified.status_code == 204, verified.text
    return token


def _latest_mail(console_url: str, to: str) -> dict[str, str]:
    messages = httpx.get(f"{console_url}/dev/mailbox", params={"to": to}).json()
    assert messages, f"no mail to {to}"
    return messages[0]  # type: ignore[no-any-return]


def _fill_registration(page: Page, email: str, password: str = PASSWORD) -> None:
    page.get_by_label("First name").fill(" Nia ")
    page.get_by_label("Last name").fill(" Register ")
    page.get_by_label("Work email").fill(email)
    page.get_by_label("Company name").fill(" Register Labs ")
    page.get_by_label("Password").fill(password)


def _sign_in(page: Page, email: str, password: str) -> None:
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in with Email").click()


def test_register_sign_out_sign_in_and_reset_the_password(page: Page, console_url: str) -> None:
    email = f"nia@{_domain()}"
    page.goto("/login")
    page.get_by_role("link", name="create your free account").click()
    expect(page).to_have_url(re.compile(r"/registration$"))
    expect(page).to_have_title("Sign Up")
    expect(page.get_by_text("Sign up for free. No credit card required.")).to_be_visible()
    _fill_registration(page, email.upper())
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(page).to_have_url(ACCOUNT)
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text("Register Labs")

    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))
    _sign_in(page, email, PASSWORD)
    expect(page).to_have_url(ACCOUNT)

    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_role("button", name="Reset Password").click()
    expect(page.get_by_text("Email address is required")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Reset Password").click()
    expect(page.get_by_role("button", name="Change Password")).to_be_visible()
    expect(page.get_by_label("Email")).to_have_value(email)
    expect(page.get_by_label("Email")).to_have_attribute("readonly", "")
    page.get_by_role("button", name="Change Password").click()
    expect(page.get_by_text("Verification code is required")).to_be_visible()
    page.get_by_label("Verification code").fill(_latest_mail(console_url, email)["code"])
    page.get_by_role("button", name="Change Password").click()
    expect(page.get_by_text("Enter a new password")).to_be_visible()
    page.get_by_label("New password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change Password").click()
    expect(page.get_by_text("You must confirm your password")).to_be_visible()
    page.get_by_label("Confirm password").fill(NEW_PASSWORD + "x")
    page.get_by_role("button", name="Change Password").click()
    expect(page.get_by_text("New password and confirm password must match")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "complete_forgot_password.png"), full_page=True)
    page.get_by_label("Confirm password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change Password").click()
    expect(page).to_have_url(re.compile(r"/account$"))

    page.goto("/logout")
    _sign_in(page, email, NEW_PASSWORD)
    expect(page).to_have_url(ACCOUNT)


def test_registration_messages(page: Page, console_url: str) -> None:
    page.goto("/registration")
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(page.get_by_text("Required", exact=True)).to_have_count(5)
    _fill_registration(page, "someone@gmail.com", "short")
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(page.get_by_text("Must be a valid business email address")).to_be_visible()
    expect(page.get_by_text(PASSWORD_RULE)).to_be_visible()

    # Existing user (the demo user: Cognito refuses the sign-up, nothing changes).
    _fill_registration(page, DEMO_EMAIL)
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(page.get_by_text("This email address is already in use")).to_be_visible()

    # A free provider only the server's fuller list knows.
    _fill_registration(page, f"x{secrets.token_hex(3)}@123india.com")
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(
        page.get_by_text("Sorry, registration failed. Please use a business email address.")
    ).to_be_visible()

    # The sb_wiz.qc flag fails registration after 1 s without calling the server.
    email = f"flag@{_domain()}"
    page.evaluate("() => sessionStorage.setItem('sb_wiz.qc', '1')")
    _fill_registration(page, email)
    page.get_by_role("button", name="Sign up", exact=True).click()
    expect(page.get_by_role("button", name="Sign up with Google")).to_be_disabled()
    expect(
        page.get_by_text(
            "Sorry - our server hit an error registering your account. Please try again or "
            "email support if the issue persists."
        )
    ).to_be_visible()
    page.evaluate("() => sessionStorage.removeItem('sb_wiz.qc')")
    sign_in = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": email, "password": PASSWORD}
    )
    assert sign_in.status_code == 400


def test_registration_side_panel_follows_the_width(page: Page) -> None:
    page.goto("/registration")
    panel = page.get_by_test_id("registration-panel")
    expect(panel).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "registration_wide.png"), full_page=True)
    assert panel.bounding_box()["width"] == 400  # type: ignore[index]
    page.set_viewport_size({"width": 850, "height": 800})
    expect(panel).to_be_visible()
    assert panel.bounding_box()["width"] == 350  # type: ignore[index]
    page.set_viewport_size({"width": 700, "height": 800})
    expect(panel).to_be_hidden()
    expect(page.get_by_role("button", name="Sign up with GitHub")).to_be_visible()


def test_invited_user_completes_the_new_password_mode(page: Page, console_url: str) -> None:
    domain = _domain()
    owner = f"owner@{domain}"
    invited = f"invited@{domain}"
    token = _register_in_api(console_url, owner, "Invite Works")
    invitation = httpx.post(
        f"{console_url}/web/users",
        headers={"Authorization": f"Bearer {token}"},
        json={"firstName": "Ivy", "lastName": "Invited", "email": invited},
    )
    assert invitation.status_code == 201, invitation.text
    temporary = _latest_mail(console_url, invited)["temporaryPassword"]
    page.goto("/login")
    _sign_in(page, invited, temporary)
    new_password = page.get_by_placeholder("Password", exact=True)
    expect(new_password).to_be_visible()
    page.get_by_role("button", name="Change Password").click()
    expect(page.get_by_text("A new password is required")).to_be_visible()
    new_password.fill("weak")
    page.get_by_role("button", name="Change Password").click()
    expect(page.get_by_text(PASSWORD_RULE)).to_be_visible()
    new_password.fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change Password").click()
    expect(page).to_have_url(ACCOUNT)
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text("Invite Works")


def _hosted_sign_in(page: Page, button: str, email: str, first: str) -> None:
    """A new identity signs in on the hosted-UI stand-in and lands on /oauth/sso; a Google one
    as a Workspace account of its email's domain."""
    workspace = email.rsplit("@", 1)[1] if "Google" in button else None
    sign_in_on_hosted_ui(page, button, email, first, "Federated", workspace)
    expect(page).to_have_url(re.compile(r"/oauth/sso\?code="))


def test_google_identity_creates_an_account_and_a_colleague_joins_it(
    page: Page, browser: Browser, console_url: str
) -> None:
    domain = _domain()
    founder = f"founder@{domain}"
    _hosted_sign_in(page, "Sign in with Google", founder, "Fay")
    expect(page).to_have_title("Auth")
    expect(page.get_by_text("Welcome to Autostep, Fay!")).to_be_visible()
    expect(page.get_by_role("radio", name=re.compile("Create a new account"))).to_be_checked()
    expect(page.get_by_role("radio", name=re.compile("Join an existing account"))).to_be_disabled()
    assert_no_axe_violations(page, "/oauth/sso")
    page.get_by_label("Account name").fill("   ")
    page.get_by_role("button", name="Complete Registration").click()
    expect(page.get_by_text("Account name must not be empty")).to_be_visible()
    page.get_by_label("Account name").fill("  Fay's Robots  ")
    page.get_by_role("button", name="Complete Registration").click()
    expect(page).to_have_url(ACCOUNT)
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text("Fay's Robots")

    # The founder proves the domain by DNS, then requires Google SSO on User Management.
    page.get_by_role("link", name="User Management").click()
    verify_domain_in_console(page, console_url, domain)
    page.get_by_role("radio", name=re.compile("^Google")).click()
    page.get_by_role("dialog", name="Enable Google Single Sign-on").get_by_role(
        "button", name="Confirm"
    ).click()
    expect(page.get_by_role("radio", name=re.compile("^Google"))).to_be_checked()

    context = browser.new_context(base_url=console_url, viewport={"width": 1280, "height": 800})
    colleague = context.new_page()
    try:
        _hosted_sign_in(colleague, "Sign in with Google", f"cole@{domain}", "Cole")
        expect(colleague.get_by_text("Welcome to Autostep, Cole!")).to_be_visible()
        join = colleague.get_by_role("radio", name=re.compile("Join an existing account"))
        expect(join).to_be_checked()
        expect(colleague.get_by_text(f"for {domain}")).to_be_visible()
        expect(colleague.get_by_text("1 user(s)")).to_be_visible()
        colleague.screenshot(path=str(ARTIFACTS / "oauth_sso_join_choice.png"), full_page=True)
        assert_no_axe_violations(colleague, "/oauth/sso (join)")
        colleague.get_by_role("button", name="Join Account").click()
        expect(colleague).to_have_url(ACCOUNT)
        expect(colleague.get_by_test_id("sidebar-account-name")).to_have_text("Fay's Robots")
    finally:
        context.close()


def test_github_identity_creates_an_account(page: Page) -> None:
    _hosted_sign_in(page, "Sign in with GitHub", f"octo@{_domain()}", "Octo")
    expect(page.get_by_text("Welcome to Autostep, Octo!")).to_be_visible()
    page.get_by_label("Account name").fill("Octo Works")
    page.get_by_role("button", name="Complete Registration").click()
    expect(page).to_have_url(ACCOUNT)
    # Signing in again goes straight to the console.
    page.goto("/logout")
    expect(page).to_have_url(re.compile(r"/login"))


def test_oauth_landing_errors(page: Page) -> None:
    page.goto("/oauth/sso")
    expect(page.get_by_text("Authorization code is not present in request")).to_be_visible()
    # A code without this browser's state (login CSRF): refused before any exchange.
    page.goto("/oauth/sso?code=not-a-real-code")
    expect(page.get_by_text("Unable to authenticate user")).to_be_visible()
    page.goto("/oauth/sso?code=not-a-real-code&state=forged")
    expect(page.get_by_text("Unable to authenticate user")).to_be_visible()
    # This browser's own state with a bad code: the provider's invalid_grant.
    page.goto("/login")
    page.get_by_role("button", name="Sign in with Google").click()
    expect(page).to_have_url(re.compile(r"/oauth2/authorize\?"))
    state = parse_qs(urlparse(page.url).query)["state"][0]
    page.goto(f"/oauth/sso?code=not-a-real-code&state={state}")
    expect(page.get_by_text("Validation code has expired")).to_be_visible()


def test_google_only_account_refuses_passwords(page: Page, console_url: str) -> None:
    domain = _domain()
    email = f"pat@{domain}"
    owner = {"Authorization": f"Bearer {google_account_in_api(console_url, f'gus@{domain}', 'G')}"}
    invited = httpx.post(
        f"{console_url}/web/users",
        headers=owner,
        json={"firstName": "Pat", "lastName": "Password", "email": email},
    )
    assert invited.status_code == 201, invited.text
    require_google_sso_in_api(console_url, owner, domain)
    page.goto("/login")
    _sign_in(page, email, _latest_mail(console_url, email)["temporaryPassword"])
    expect(page.get_by_text("This user must sign in with Google")).to_be_visible()
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Reset Password").click()
    expect(page.get_by_text("This user must sign in with Google")).to_be_visible()
