"""Roles and invitations in the browser: the invite dialog's role choice, Pending
invitations with Resend and Revoke, and every change an Admin or a Member may not make shown
disabled with a tooltip naming the role it needs; a refusal of the API (403 Forbidden) shows
its message and keeps the session."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from devstack.seed import DEMO_EMAIL, DEMO_PASSWORD
from tests.e2e.conftest import ARTIFACTS, api_as, demo_user, set_role, sign_in

GRACE = "grace@acme-robotics.dev"
NEW_PASSWORD = "Invited-member-2026!"
BILLING = "Only Owners can change billing."
MANAGE_USERS = "Only Owners and Admins can manage users."
OWNER_ONLY = "Only Owners can change an Owner."
ROLE_REFUSED = (
    "Only an Owner or an Admin of this account can do this. Ask one of them to do it for you."
)


@pytest.fixture
def email(console_url: str) -> Iterator[str]:
    """A new address for an invitee, removed from the demo account afterwards (other tests
    count its users)."""
    address = f"mia-{secrets.token_hex(3)}@acme-robotics.dev"
    yield address
    with api_as(console_url) as api:
        if user := demo_user(api, address):
            api.delete(f"/web/users/{user['id']}").raise_for_status()


def _nav(page: Page, item: str) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name=item).click()


def _row(page: Page, text: str) -> Locator:
    return page.get_by_role("row").filter(has_text=text)


def _expect_disabled_with_tooltip(
    page: Page, control: Locator, text: str, screenshot: str | None = None
) -> None:
    """``control`` is disabled, and hovering it shows its own tooltip reading ``text`` (a
    screenshot of the page with it into ``screenshot`` in the artifacts)."""
    expect(control).to_be_disabled()
    trigger = control.locator("xpath=ancestor::span[@tabindex][1]")
    # Hover once the page has settled: a panel above that loads after the control (Account
    # Information's lazy parts and their data) would move it from under the pointer, which
    # closes its tooltip.
    page.wait_for_load_state("networkidle")
    trigger.hover()
    tooltip = trigger.locator("xpath=following-sibling::*[@role='tooltip']")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_have_text(text)
    if screenshot:
        page.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)
    page.mouse.move(0, 0)


def _mail(console_url: str, email: str) -> list[dict[str, str]]:
    """The temporary-password emails sent to ``email``, newest first."""
    messages = httpx.get(f"{console_url}/dev/mailbox", params={"to": email}).json()
    return [m for m in messages if m.get("temporaryPassword")]


def _invite(console_url: str, email: str, role: str) -> None:
    """The demo Owner invites ``email`` with ``role`` through the API."""
    with api_as(console_url) as api:
        body = {"firstName": "Mia", "lastName": "Moss", "email": email, "role": role}
        api.post("/web/users", json=body).raise_for_status()


def _accept_invitation(page: Page, console_url: str, email: str) -> None:
    """Sign ``email`` in with the emailed temporary password and choose a password."""
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(_mail(console_url, email)[0]["temporaryPassword"])
    page.get_by_role("button", name="Sign in with Email").click()
    page.get_by_placeholder("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change Password").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def test_invite_a_member_then_resend_and_revoke(page: Page, console_url: str, email: str) -> None:
    sign_in(page)
    _nav(page, "User Management")
    expect(_row(page, DEMO_EMAIL).get_by_role("cell").nth(2)).to_have_text("Owner")
    expect(_row(page, GRACE).get_by_role("cell").nth(2)).to_have_text("Admin")

    page.get_by_role("button", name="+ Invite User").click()
    dialog = page.get_by_role("dialog", name="Invite User")
    roles = dialog.get_by_role("group", name="Role")
    expect(roles.get_by_role("radio")).to_have_count(3)  # an Owner may invite Owners
    expect(roles.get_by_role("radio", name=re.compile("^Admin"))).to_be_checked()
    expect(roles).to_contain_text("Sees everything and copies the API key; changes nothing.")
    dialog.get_by_label("First name").fill("Mary")
    dialog.get_by_label("Last name").fill("Member")
    dialog.get_by_label("Email").fill(email)
    roles.get_by_role("radio", name=re.compile("^Member")).check()
    dialog.screenshot(path=str(ARTIFACTS / "roles_invite_modal.png"))
    dialog.get_by_role("button", name="Invite User").click()
    expect(dialog).to_be_hidden()

    row = _row(page, email)
    expect(row.get_by_role("cell").nth(2)).to_have_text("Member")
    with api_as(console_url) as api:
        invited = demo_user(api, email)
    assert invited is not None
    # The console shows dates in UTC.
    invited_at = datetime.fromisoformat(invited["invitedAt"]).astimezone(UTC)
    expect(row).to_contain_text(f"PendingInvited {invited_at:%b} {invited_at.day}")
    expect(row.get_by_role("button", name="Delete Mary Member")).to_have_count(0)
    page.get_by_role("region", name="Users").screenshot(path=str(ARTIFACTS / "roles_users.png"))

    # Resend: a new temporary password, and the first one no longer signs in.
    first = _mail(console_url, email)[0]["temporaryPassword"]
    row.get_by_role("button", name="Resend Mary Member").click()
    expect(
        page.get_by_role("status").filter(has_text="A new invitation is on its way")
    ).to_contain_text(email)
    mail = _mail(console_url, email)
    assert len(mail) == 2 and mail[0]["temporaryPassword"] != first, mail
    refused = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": email, "password": first}
    )
    assert refused.status_code == 400, refused.text

    # Revoke, after the confirmation.
    row.get_by_role("button", name="Revoke Mary Member").click()
    dialog = page.get_by_role("dialog", name="Revoke Invitation")
    expect(dialog).to_contain_text(f"Mary Member ({email}) will no longer be able to sign in")
    dialog.get_by_role("button", name="Cancel").click()
    expect(row).to_be_visible()
    row.get_by_role("button", name="Revoke Mary Member").click()
    page.get_by_role("dialog", name="Revoke Invitation").get_by_role(
        "button", name="Revoke"
    ).click()
    expect(row).to_have_count(0)


def test_an_expired_invitation_is_refused_until_resent(
    page: Page, console_url: str, email: str
) -> None:
    _invite(console_url, email, "Member")
    expired = httpx.post(f"{console_url}/dev/invitations/expire", params={"email": email})
    assert expired.status_code == 200, expired.text

    # The invitee's temporary password no longer signs in, and the login screen says why.
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(_mail(console_url, email)[0]["temporaryPassword"])
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page.get_by_role("alert")).to_have_text(
        "Your invitation has expired. Ask an Owner or Admin of your account to send it again."
    )
    page.screenshot(path=str(ARTIFACTS / "roles_invitation_expired_login.png"))

    # The Owner sees it Expired, resends it, and it is Pending again with a password that works.
    sign_in(page)
    _nav(page, "User Management")
    row = _row(page, email)
    expect(row).to_contain_text("Expired")
    page.get_by_role("region", name="Users").screenshot(
        path=str(ARTIFACTS / "roles_users_expired.png")
    )
    row.get_by_role("button", name="Resend Mia Moss").click()
    expect(row).to_contain_text("Pending")
    expect(row).not_to_contain_text("Expired")
    page.context.clear_cookies()
    _accept_invitation(page, console_url, email)


def test_nobody_changes_their_own_role(page: Page) -> None:
    # Another Owner does it, so an account never loses its last Owner this way either.
    sign_in(page)
    _nav(page, "User Management")
    page.get_by_role("button", name="Edit Ada Lovelace").click()
    dialog = page.get_by_role("dialog", name="Edit User")
    expect(dialog.get_by_role("radio")).to_have_count(0)
    expect(dialog).to_contain_text(
        "Role: Owner. You cannot change your own role. Ask another Owner to change it."
    )
    dialog.screenshot(path=str(ARTIFACTS / "roles_own_role.png"))
    dialog.get_by_role("button", name="Cancel").click()
    expect(_row(page, DEMO_EMAIL).get_by_role("cell").nth(2)).to_have_text("Owner")


def test_an_admin_changes_no_billing_and_no_owner(page: Page) -> None:
    sign_in(page, GRACE, DEMO_PASSWORD)
    _nav(page, "Billing & Subscription")
    card = page.get_by_role("region", name="Payment Method")
    change_card = card.get_by_role("button", name=re.compile("^(Add Card|Edit)$")).first
    _expect_disabled_with_tooltip(page, change_card, BILLING, "roles_billing_admin.png")
    expect(card.get_by_role("link")).to_have_count(0)  # no way to /payment
    expect(page.get_by_role("button", name="Update")).to_be_disabled()
    page.goto("/payment")
    expect(page.get_by_role("status")).to_contain_text(BILLING)
    expect(page.get_by_test_id("card-element")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "roles_payment_admin.png"))

    page.goto("/users")
    for action in ("Edit", "Delete"):
        _expect_disabled_with_tooltip(
            page,
            page.get_by_role("button", name=f"{action} Ada Lovelace"),
            OWNER_ONLY,
            f"roles_admin_{action.lower()}_owner.png",
        )
    page.get_by_role("button", name="Edit Katherine Johnson").click()
    dialog = page.get_by_role("dialog", name="Edit User")
    expect(dialog.get_by_role("radio")).to_have_count(2)  # Admin and Member: no Owner
    expect(dialog.get_by_role("radio", name=re.compile("^Owner"))).to_have_count(0)
    dialog.get_by_role("button", name="Cancel").click()
    expect(page).to_have_url(re.compile(r"/users$"))


def test_a_member_changes_nothing_and_a_refusal_keeps_the_session(
    page: Page, console_url: str, email: str
) -> None:
    _invite(console_url, email, "Admin")
    _accept_invitation(page, console_url, email)
    _nav(page, "User Management")
    invite = page.get_by_role("button", name="+ Invite User")
    expect(invite).to_be_enabled()

    # An Owner makes them a Member while their page still shows what an Admin may do: the API
    # refuses, the dialog says why, and they stay signed in.
    set_role(console_url, email, "Member")
    invite.click()
    dialog = page.get_by_role("dialog", name="Invite User")
    dialog.get_by_label("First name").fill("Not")
    dialog.get_by_label("Last name").fill("Invited")
    dialog.get_by_label("Email").fill(f"not-{email}")
    dialog.get_by_role("button", name="Invite User").click()
    expect(dialog.get_by_role("alert")).to_have_text(ROLE_REFUSED)
    expect(page).to_have_url(re.compile(r"/users$"))
    dialog.get_by_role("button", name="Cancel").click()

    # Once the page knows the new role, every change is disabled with the role it needs.
    page.reload()
    expect(_row(page, email).get_by_role("cell").nth(2)).to_have_text("Member")
    for action in ("Edit Ada Lovelace", "Delete Grace Hopper", "Edit Mia Moss"):
        _expect_disabled_with_tooltip(page, page.get_by_role("button", name=action), MANAGE_USERS)
    _expect_disabled_with_tooltip(
        page,
        page.get_by_role("radio", name=re.compile("^Email and password")),
        "Only Owners and Admins can change single sign-on.",
    )
    domains = page.get_by_role("region", name="Domains")
    expect(domains.get_by_label("Domain", exact=True)).to_be_disabled()
    _expect_disabled_with_tooltip(
        page,
        domains.get_by_role("button", name="Add domain"),
        "Only Owners and Admins can change single sign-on.",
    )
    _expect_disabled_with_tooltip(page, invite, MANAGE_USERS, "roles_users_member.png")

    _nav(page, "Account Information")
    expect(page.get_by_label("Account Name")).to_have_attribute("readonly", "")
    _expect_disabled_with_tooltip(
        page,
        page.get_by_role("button", name="Save", exact=True),
        "Only Owners and Admins can rename the account.",
    )
    _expect_disabled_with_tooltip(
        page,
        page.get_by_role("button", name="Roll key"),
        "Only Owners and Admins can change API keys.",
        "roles_account_member.png",
    )
    expect(page.get_by_role("button", name="Reveal")).to_be_enabled()  # Members read the key
    page.get_by_role("button", name="Reveal").click()
    expect(page.get_by_test_id("api-key")).to_have_text(re.compile(r"^ak_[0-9a-f]{40}$"))
    alerts = page.get_by_role("region", name="Usage alerts")
    for checkbox in alerts.get_by_role("checkbox").all():
        expect(checkbox).to_be_disabled()
    _expect_disabled_with_tooltip(
        page,
        alerts.get_by_role("button", name="Save alerts"),
        "Only Owners and Admins can change usage alerts.",
    )

    _nav(page, "Billing & Subscription")
    card = page.get_by_role("region", name="Payment Method")
    _expect_disabled_with_tooltip(
        page, card.get_by_role("button", name=re.compile("^(Add Card|Edit)$")).first, BILLING
    )
    expect(page.get_by_role("button", name="Update")).to_be_disabled()
    page.goto("/payment")
    expect(page.get_by_role("status")).to_contain_text(BILLING)
    page.get_by_role("link", name="Back to Billing").click()
    expect(page).to_have_url(re.compile(r"/billing$"))
