"""SAML single sign-on in the browser (README "SAML single sign-on"): an Admin sets it up from
the stand-in identity provider's metadata URL and tests it, a new person signs in through
'Sign in with SSO' and lands in the account, SAML is required, a password user of the
account is refused at the next request, and removing the connection signs its people out with
what to do now. The certificate-expiry warning, and a domain with no connection on the login
screen. An Admin cannot connect her own identity provider to sign in as the Owner (README
"Security model", "Who someone is")."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from devstack.saml_idp import make_signing_key, metadata_xml
from tests.e2e.conftest import (
    ARTIFACTS,
    assert_no_axe_violations,
    google_account_in_api,
    sign_in,
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


def _sign_in_at_identity_provider(
    page: Page, email: str, first: str, last: str, sso_path: str = "/dev/saml-idp/sso"
) -> None:
    """Fill the stand-in identity provider's sign-in page (at ``sso_path``) and press
    Continue."""
    expect(page).to_have_url(re.compile(re.escape(sso_path) + r"\?SAMLRequest="))
    page.get_by_label("Email").fill(email)
    page.get_by_label("First name").fill(first)
    page.get_by_label("Last name").fill(last)
    page.get_by_role("button", name="Continue").click()


def _sign_in_with_sso_start(page: Page, email: str) -> None:
    """'Sign in with SSO' on /login with ``email``."""
    page.goto("/login")
    page.get_by_role("button", name="Sign in with SSO").click()
    page.get_by_label("Work email").fill(email)
    page.get_by_role("button", name="Continue with SSO").click()


def _sign_in_with_sso(page: Page, email: str, first: str, last: str) -> None:
    """'Sign in with SSO' on /login with ``email``, then sign in at the identity provider."""
    _sign_in_with_sso_start(page, email)
    _sign_in_at_identity_provider(page, email, first, last)


def _password_user(browser: Browser, console_url: str, email: str) -> Page:
    """A page of ``email``, invited by email (their temporary password from the dev mailbox,
    changed at the first sign-in), signed in."""
    temporary = httpx.get(f"{console_url}/dev/mailbox", params={"to": email}).json()[0]
    context = browser.new_context(base_url=console_url)
    page = context.new_page()
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(temporary["temporaryPassword"])
    page.get_by_role("button", name="Sign in with Email").click()
    page.get_by_placeholder("Password").fill(PASSWORD)
    page.get_by_role("button", name="Change Password").click()
    expect(page).to_have_url(ACCOUNT)
    return page


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
    pat_page = _password_user(browser, console_url, pat)

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
    pat_page.context.close()

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


def test_an_expiring_certificate_is_warned_about(
    page: Page, console_url: str, tmp_path: Path
) -> None:
    domain, _ = _company(console_url, "Expiring Co")
    key = make_signing_key(tmp_path, valid_for=timedelta(days=12))
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


def test_an_admin_cannot_sign_in_as_the_owner_through_her_own_identity_provider(
    browser: Browser, page: Page, console_url: str
) -> None:
    # The attack: Grace, an Admin, connects an identity provider she controls (the dev
    # stand-in signs anyone in) for the account's verified domain, then signs in through it
    # asserting the Owner's address, to be linked to the Owner's user.
    domain, owner = _company(console_url, "Takeover Co")
    grace = f"grace@{domain}"
    invited = httpx.post(
        f"{console_url}/web/users",
        headers=owner,
        json={"firstName": "Grace", "lastName": "Admin", "email": grace, "role": "Admin"},
    )
    assert invited.status_code == 201, invited.text
    grace_page = _password_user(browser, console_url, grace)
    signed_in = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": grace, "password": PASSWORD}
    )
    as_grace = {"Authorization": f"Bearer {signed_in.json()['tokens']['accessToken']}"}
    attempted = httpx.put(
        f"{console_url}/web/sso/saml",
        headers=as_grace,
        json={"metadataUrl": f"{console_url}/dev/saml-idp/metadata"},
    )
    grace_page.goto("/logout")
    expect(grace_page).to_have_url(LOGIN)
    _sign_in_with_sso_start(grace_page, f"gus@{domain}")
    # The outcome: no identity provider of hers routes the domain; she is not in as the Owner.
    expect(grace_page.get_by_role("alert")).to_have_text(
        f"No single sign-on is set up for {domain}."
    )
    expect(grace_page).to_have_url(LOGIN)
    assert attempted.status_code == 403, attempted.text
    # The console says so before she tries: setting SAML up is an Owner's.
    sign_in(grace_page, grace, PASSWORD)
    expect(grace_page).to_have_url(ACCOUNT)
    _to_security(grace_page)
    box = grace_page.get_by_role("region", name="SAML single sign-on")
    set_up = box.get_by_role("button", name="Set up SAML")
    expect(set_up).to_be_disabled()
    trigger = set_up.locator("xpath=ancestor::span[@tabindex][1]")
    grace_page.wait_for_load_state("networkidle")
    trigger.hover()
    tooltip = trigger.locator("xpath=following-sibling::*[@role='tooltip']")
    expect(tooltip).to_have_text("Only Owners can set up, change or require SAML single sign-on.")
    grace_page.screenshot(path=str(ARTIFACTS / "saml_admin_cannot_connect.png"), full_page=True)
    grace_page.context.close()

    # The Owner sets the connection up; the first sign-in of the Owner through it links them.
    sign_in_with_google(page, f"gus@{domain}", "Gus", "Google")
    expect(page).to_have_url(ACCOUNT)
    _to_security(page)
    page.get_by_role("region", name="SAML single sign-on").get_by_role(
        "button", name="Set up SAML"
    ).click()
    setup = page.get_by_role("dialog", name="Set up SAML single sign-on")
    setup.get_by_label("Metadata URL").fill(f"{console_url}/dev/saml-idp/metadata")
    setup.get_by_role("button", name="Save connection").click()
    expect(setup).to_be_hidden()
    connected = page.get_by_role("region", name="SAML single sign-on")
    expect(connected).to_contain_text("Connected")
    expect(connected).to_contain_text("Existing users link at their first sign-in")
    expect(connected).to_contain_text("Sign-in requests")
    expect(connected).to_contain_text("Not signed")

    # An identity provider that wants signed requests (a Keycloak realm): the console signs
    # them and shows the certificate to give it; its people sign in.
    connected.get_by_role("button", name="Update metadata").click()
    update = page.get_by_role("dialog", name="Update SAML single sign-on")
    update.get_by_label("Metadata URL").fill(f"{console_url}/dev/saml-idp/signed-requests/metadata")
    update.get_by_role("button", name="Save connection").click()
    expect(update).to_be_hidden()
    expect(connected).to_contain_text("Signed (RSA-SHA256), as your identity provider asks")
    certificate = connected.get_by_label("Signing certificate (PEM)")
    expect(certificate).to_contain_text("-----BEGIN CERTIFICATE-----")
    expect(connected).to_contain_text("Give your identity provider this certificate")
    connected.screenshot(path=str(ARTIFACTS / "saml_signed_requests.png"))
    assert_no_axe_violations(page, "/users with a connection that signs its requests")
    newcomer = browser.new_context(base_url=console_url)
    new_page = newcomer.new_page()
    _sign_in_with_sso_start(new_page, f"kim@{domain}")
    _sign_in_at_identity_provider(
        new_page, f"kim@{domain}", "Kim", "Keycloak", "/dev/saml-idp/signed-requests/sso"
    )
    expect(new_page).to_have_url(ACCOUNT)
    expect(new_page.get_by_text("Takeover Co").first).to_be_visible()
    newcomer.close()
