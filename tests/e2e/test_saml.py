"""SAML single sign-on in the browser (README "SAML single sign-on"): an Admin sets it up from
the stand-in identity provider's metadata URL and tests it, a new person signs in through
'Sign in with SSO' and lands in the account, SAML is required, a password user of the
account is refused at the next request, and removing the connection signs its people out with
what to do now. The certificate-expiry warning, and a domain with no connection on the login
screen."""

from __future__ import annotations

import re
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from devstack.saml_idp import make_signing_key, metadata_xml
from tests.e2e.conftest import (
    ARTIFACTS,
    assert_no_axe_violations,
    google_account_in_api,
    sign_in_with_google,
    verify_domain_in_api,
)

PASSWORD = "Sturdy-password-42!"
ACCOUNT = re.compile(r"/account$")
LOGIN = re.compile(r"/login(\?next=.*)?$")


def _company(console_url: str, name: str) -> tuple[str, dict[str, str]]:
    """A new account whose Google Owner (gus@<domain>) verified its domain; returns the domain
    and the Owner's API headers."""
    domain = f"saml-{secrets.token_hex(4)}.com"
    token = google_account_in_api(console_url, f"gus@{domain}", name)
    headers = {"Authorization": f"Bearer {token}"}
    verify_domain_in_api(console_url, headers, domain)
    return domain, headers


def _sign_in_at_identity_provider(page: Page, email: str, first: str, last: str) -> None:
    """Fill the stand-in identity provider's sign-in page and press Continue."""
    expect(page).to_have_url(re.compile(r"/dev/saml-idp/sso\?SAMLRequest="))
    page.get_by_label("Email").fill(email)
    page.get_by_label("First name").fill(first)
    page.get_by_label("Last name").fill(last)
    page.get_by_role("button", name="Continue").click()


def _sign_in_with_sso(page: Page, email: str, first: str, last: str) -> None:
    """'Sign in with SSO' on /login with ``email``, then sign in at the identity provider."""
    page.goto("/login")
    page.get_by_role("button", name="Sign in with SSO").click()
    page.get_by_label("Work email").fill(email)
    page.get_by_role("button", name="Continue with SSO").click()
    _sign_in_at_identity_provider(page, email, first, last)


def _to_security(page: Page) -> None:
    page.get_by_role("link", name="User Management").click()
    expect(page.get_by_role("heading", name="User Management")).to_be_visible()


def _saml_option(page: Page):  # type: ignore[no-untyped-def]
    return page.get_by_role("radio", name=re.compile("^SAML"))


def test_set_up_test_join_and_require_saml(browser: Browser, page: Page, console_url: str) -> None:
    domain, owner = _company(console_url, "Samlington")
    # A password user of the account (invited; signs in with the emailed password).
    pat = f"pat@{domain}"
    invited = httpx.post(
        f"{console_url}/web/users",
        headers=owner,
        json={"firstName": "Pat", "lastName": "Password", "email": pat},
    )
    assert invited.status_code == 201, invited.text
    temporary = httpx.get(f"{console_url}/dev/mailbox", params={"to": pat}).json()[0]
    pat_context = browser.new_context(base_url=console_url)
    pat_page = pat_context.new_page()
    pat_page.goto("/login")
    pat_page.get_by_label("Email").fill(pat)
    pat_page.get_by_label("Password").fill(temporary["temporaryPassword"])
    pat_page.get_by_role("button", name="Sign in with Email").click()
    pat_page.get_by_placeholder("Password").fill(PASSWORD)
    pat_page.get_by_role("button", name="Change Password").click()
    expect(pat_page).to_have_url(ACCOUNT)

    # The Owner opens Security and chooses SAML: the set-up opens.
    sign_in_with_google(page, f"gus@{domain}", "Gus", "Google")
    expect(page).to_have_url(ACCOUNT)
    _to_security(page)
    box = page.get_by_role("region", name="SAML single sign-on")
    expect(box).to_contain_text("Not set up")
    _saml_option(page).click()
    setup = page.get_by_role("dialog", name="Set up SAML single sign-on")
    expect(setup).to_be_visible()
    expect(setup).to_contain_text("urn:amazon:cognito:sp:")
    expect(setup).to_contain_text(f"{console_url}/saml2/idpresponse")
    expect(setup).to_contain_text("urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=console_url)
    setup.get_by_role("button", name="Copy Entity ID (Audience URI)").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert re.fullmatch(r"urn:amazon:cognito:sp:[\w-]+", copied), copied
    setup.get_by_text("Steps for Okta").click()
    expect(setup).to_contain_text("Audience URI (SP Entity ID): the Entity ID")
    dialog_box = setup.bounding_box()
    assert dialog_box is not None and dialog_box["width"] == 800, dialog_box
    page.screenshot(path=str(ARTIFACTS / "saml_setup_modal.png"), full_page=True)
    assert_no_axe_violations(page, "the SAML set-up")

    # A metadata URL that is no metadata: the problem is named, nothing is saved.
    setup.get_by_label("Metadata URL").fill(f"{console_url}/web/config")
    setup.get_by_role("button", name="Save connection").click()
    expect(setup.get_by_role("alert")).to_contain_text("The metadata is not a valid XML document.")
    setup.get_by_label("Metadata URL").fill(f"{console_url}/dev/saml-idp/metadata")
    setup.get_by_role("button", name="Save connection").click()
    expect(setup).to_be_hidden()
    expect(box).to_contain_text("Connected")
    expect(box).to_contain_text(f"{console_url}/dev/saml-idp/metadata (fetched daily)")
    expect(box).to_contain_text(domain)
    # Required only by a user who signed in through it: the Owner signed in with Google.
    expect(_saml_option(page)).to_be_disabled()

    # Test sign-in: a window on the identity provider; the result shows here.
    with page.expect_popup() as opened:
        box.get_by_role("button", name="Test sign-in").click()
    popup = opened.value
    _sign_in_at_identity_provider(popup, f"tess@{domain}", "Tess", "Tester")
    popup.wait_for_event("close")
    expect(box).to_contain_text(f"Signed in as tess@{domain} (Tess Tester): the connection works.")
    box.screenshot(path=str(ARTIFACTS / "saml_connected.png"))
    assert_no_axe_violations(page, "/users with a SAML connection")

    # A new person of the domain signs in through 'Sign in with SSO' and lands in the account.
    newcomer = browser.new_context(base_url=console_url)
    new_page = newcomer.new_page()
    _sign_in_with_sso(new_page, f"nina@{domain}", "Nina", "New")
    expect(new_page).to_have_url(ACCOUNT)
    expect(new_page.get_by_text("Samlington").first).to_be_visible()
    page.reload()
    users = page.get_by_role("table", name="Users")
    nina = users.get_by_role("row").filter(has_text=f"nina@{domain}")
    expect(nina).to_contain_text("SAML SSO")
    expect(nina).to_contain_text("Member")

    # The Owner signs in through SSO (their user is linked), then requires it.
    page.goto("/logout")
    expect(page).to_have_url(LOGIN)
    _sign_in_with_sso(page, f"gus@{domain}", "Gus", "Google")
    expect(page).to_have_url(ACCOUNT)
    _to_security(page)
    _saml_option(page).click()
    confirm = page.get_by_role("dialog", name="Enable SAML Single Sign-on")
    expect(confirm).to_contain_text(f"Anyone with an email address at {domain} signs in")
    page.screenshot(path=str(ARTIFACTS / "saml_enable_modal.png"), full_page=True)
    confirm.get_by_role("button", name="Confirm").click()
    expect(confirm).to_be_hidden()
    expect(_saml_option(page)).to_be_checked()
    expect(page.get_by_role("button", name="+ Invite User")).to_be_disabled()

    # The password user is refused at their next request.
    pat_page.reload()
    expect(pat_page).to_have_url(LOGIN)
    expect(pat_page.get_by_text("This user must sign in with SSO")).to_be_visible()
    pat_page.screenshot(path=str(ARTIFACTS / "saml_password_user_refused.png"), full_page=True)
    pat_context.close()

    # Switching back asks first.
    page.get_by_role("radio", name=re.compile("^Email and password")).click()
    disable = page.get_by_role("dialog", name="Disable SAML Single Sign-on")
    expect(disable).to_be_visible()
    disable.get_by_role("button", name="Cancel").click()
    expect(_saml_option(page)).to_be_checked()

    # Removing the connection: the Owner, who signed in through it, is told they will be
    # signed out, and is; Nina's open tab is refused at its next request. Both are told what
    # to do now.
    box.get_by_role("button", name="Remove").click()
    removal = page.get_by_role("dialog", name="Remove SAML single sign-on")
    expect(removal).to_contain_text("You signed in through it: you will be signed out")
    removal.get_by_role("button", name="Remove").click()
    notice = page.get_by_text("Your account no longer uses SAML single sign-on.")
    expect(page).to_have_url(LOGIN)
    expect(notice).to_be_visible()
    new_page.reload()
    expect(new_page).to_have_url(LOGIN)
    expect(new_page.get_by_text("use 'Forgot your password?' to set one")).to_be_visible()
    new_page.screenshot(path=str(ARTIFACTS / "saml_removed_notice.png"), full_page=True)
    newcomer.close()


def test_an_expiring_certificate_is_warned_about(page: Page, console_url: str) -> None:
    domain, _ = _company(console_url, "Expiring Co")
    key = make_signing_key(Path(tempfile.mkdtemp(prefix="saml-e2e-")), valid_for=timedelta(days=12))
    document = metadata_xml(
        entity_id="https://idp.expiring.example/metadata",
        sso_url="https://idp.expiring.example/sso",
        certificate_base64=key.certificate_base64,
    )
    sign_in_with_google(page, f"gus@{domain}", "Gus", "Google")
    expect(page).to_have_url(ACCOUNT)
    _to_security(page)
    page.get_by_role("region", name="SAML single sign-on").get_by_role(
        "button", name="Set up SAML"
    ).click()
    setup = page.get_by_role("dialog", name="Set up SAML single sign-on")
    setup.get_by_label("Upload the XML file").check()
    setup.get_by_label("Metadata file (.xml)").set_input_files(
        {"name": "metadata.xml", "mimeType": "application/xml", "buffer": document.encode()}
    )
    setup.get_by_role("button", name="Save connection").click()
    expect(setup).to_be_hidden()
    warning = page.get_by_role("status").filter(has_text="signing certificate of your SAML")
    expect(warning.first).to_contain_text("expires on")
    expect(page.get_by_role("region", name="SAML single sign-on")).to_contain_text(
        "Uploaded XML file"
    )
    page.screenshot(path=str(ARTIFACTS / "saml_certificate_warning.png"), full_page=True)


def test_a_domain_without_single_sign_on(page: Page) -> None:
    page.goto("/login")
    page.get_by_role("button", name="Sign in with SSO").click()
    page.get_by_label("Work email").fill("jane@no-sso-here.dev")
    page.get_by_role("button", name="Continue with SSO").click()
    expect(page.get_by_role("alert")).to_have_text(
        "No single sign-on is set up for no-sso-here.dev."
    )
    # The other ways in are still there.
    expect(page.get_by_role("button", name="Sign in with Google")).to_be_visible()
    expect(page.get_by_role("button", name="Sign in with Email")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "login_sso_not_set_up.png"), full_page=True)
    assert_no_axe_violations(page, "/login with 'Sign in with SSO'")
