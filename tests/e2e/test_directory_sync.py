"""Directory sync in the browser (README "Directory sync (SCIM)"): an Admin generates a SCIM
token in User Management; a person the directory provisions shows as Pending, signs in with
Google and lands in the account with no join step, and loses access at the next request once
the directory deactivates them; the groups the directory pushes are listed with the role each
gives, and choosing one changes its members' roles."""

from __future__ import annotations

import re
import secrets

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import (
    ARTIFACTS,
    assert_no_axe_violations,
    google_account_in_api,
    require_google_sso_in_api,
    sign_in_with_google,
)

ACCOUNT = re.compile(r"/account$")
LOGIN = re.compile(r"/login(\?next=.*)?$")
SCIM = "application/scim+json"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


def _provision(console_url: str, token: str, email: str, first: str, last: str) -> str:
    """Create ``email`` over SCIM with ``token``, as an identity provider does; returns its id."""
    created = httpx.post(
        f"{console_url}/scim/v2/Users",
        headers={"Authorization": f"Bearer {token}", "Content-Type": SCIM},
        json={
            "schemas": [USER_SCHEMA],
            "userName": email,
            "name": {"givenName": first, "familyName": last},
            "emails": [{"value": email, "type": "work", "primary": True}],
            "active": True,
        },
        timeout=30,
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def _push_group(console_url: str, token: str, name: str, *members: str) -> str:
    """Push a group over SCIM with ``token``, as Okta's Group Push does; returns its id."""
    created = httpx.post(
        f"{console_url}/scim/v2/Groups",
        headers={"Authorization": f"Bearer {token}", "Content-Type": SCIM},
        json={
            "schemas": [GROUP_SCHEMA],
            "displayName": name,
            "members": [{"value": m} for m in members],
        },
        timeout=30,
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def _patch(console_url: str, token: str, path: str, *operations: dict[str, object]) -> None:
    response = httpx.patch(
        f"{console_url}/scim/v2{path}",
        headers={"Authorization": f"Bearer {token}", "Content-Type": SCIM},
        json={"schemas": [PATCH_SCHEMA], "Operations": list(operations)},
        timeout=30,
    )
    assert response.status_code == 200, response.text


def test_an_admin_sets_up_directory_sync_and_the_directory_governs_access(
    page: Page, browser: Browser, console_url: str
) -> None:
    domain = f"e2e-{secrets.token_hex(4)}.com"
    owner_token = google_account_in_api(console_url, f"own@{domain}", "Sync Systems")
    owner = {"Authorization": f"Bearer {owner_token}"}
    require_google_sso_in_api(console_url, owner, domain)
    # The Admin is provisioned too, with a first token the Owner generated through the API,
    # and is made an Admin by a group the Owner maps to Admin.
    first = httpx.post(f"{console_url}/web/scim-tokens", headers=owner, timeout=30).json()["secret"]
    admin_id = _provision(console_url, first, f"ada@{domain}", "Ada", "Admin")
    admins = _push_group(console_url, first, "Sync Admins", admin_id)
    mapped = httpx.put(
        f"{console_url}/web/scim-groups/{admins}/role",
        headers=owner,
        json={"role": "Admin"},
        timeout=30,
    )
    assert mapped.status_code == 200, mapped.text

    sign_in_with_google(page, f"ada@{domain}", "Ada", "Admin")
    expect(page).to_have_url(ACCOUNT)
    page.get_by_role("link", name="User Management").click()
    sync = page.get_by_role("region", name="Directory sync")
    expect(sync.get_by_test_id("scim-base-url")).to_have_text(f"{console_url}/scim/v2")
    sync.get_by_role("button", name="Generate token").click()
    dialog = page.get_by_role("dialog", name="SCIM token")
    expect(dialog).to_contain_text("this is the only time the token is shown")
    token = dialog.get_by_test_id("scim-token").inner_text()
    assert token.startswith("scim_")
    assert_no_axe_violations(page, "the SCIM token dialog")
    page.screenshot(path=str(ARTIFACTS / "directory_sync_token.png"), full_page=True)
    dialog.get_by_role("button", name="Done").click()
    tokens = sync.get_by_role("table", name="SCIM tokens")
    expect(tokens.get_by_role("row")).to_have_count(3)  # header, the Owner's, the Admin's
    expect(tokens).to_contain_text(f"scim_…{token[-4:]}")
    expect(tokens).to_contain_text("by Ada Admin")

    # A new hire from the directory: Pending until their first sign-in.
    email = f"neo@{domain}"
    neo_id = _provision(console_url, token, email, "Neo", "Hire")
    _push_group(console_url, token, "Engineering", neo_id)
    page.reload()
    users = page.get_by_role("table", name="Users")
    row = users.get_by_role("row", name=re.compile("Neo Hire"))
    expect(row).to_contain_text("Pending")
    expect(row).to_contain_text("Provisioned")
    expect(row).to_contain_text("Member")
    # The directory's groups, with the role each gives: the Admin cannot offer Owner, and
    # choosing Admin for Engineering makes Neo an Admin.
    groups = sync.get_by_role("table", name="Directory groups")
    expect(groups.get_by_role("row", name=re.compile("Sync Admins"))).to_contain_text("1")
    expect(groups.get_by_label("Sync Admins")).to_have_value("Admin")
    engineering = groups.get_by_label("Engineering")
    expect(engineering).to_have_value("")
    expect(engineering.locator("option", has_text="Owner")).to_be_disabled()
    engineering.select_option("Admin")
    expect(engineering).to_have_value("Admin")
    expect(users.get_by_role("row", name=re.compile("Neo Hire"))).to_contain_text("Admin")
    assert_no_axe_violations(page, "the directory groups")
    page.screenshot(path=str(ARTIFACTS / "directory_sync_groups.png"), full_page=True)
    # Nothing to resend: they sign in with Google, not with an emailed password.
    expect(row.get_by_role("button", name="Resend Neo Hire")).to_have_count(0)
    expect(sync.get_by_role("table", name="SCIM tokens")).not_to_contain_text("Never")
    page.screenshot(path=str(ARTIFACTS / "directory_sync_pending.png"), full_page=True)

    # They sign in with Google and land in the account: no join step.
    context = browser.new_context(base_url=console_url, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    hire = context.new_page()
    sign_in_with_google(hire, email, "Neo", "Hire")
    expect(hire).to_have_url(ACCOUNT)
    expect(hire.get_by_text("Sync Systems")).to_be_visible()
    page.reload()
    expect(users.get_by_role("row", name=re.compile("Neo Hire"))).not_to_contain_text("Pending")

    # The directory deactivates them: their next request is refused, /login says why.
    listed = httpx.get(
        f"{console_url}/scim/v2/Users",
        params={"filter": f'userName eq "{email}"'},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    ).json()
    _patch(
        console_url,
        token,
        f"/Users/{listed['Resources'][0]['id']}",
        {"op": "replace", "value": {"active": False}},
    )
    hire.get_by_role("link", name="Billing & Subscription").click()
    expect(hire).to_have_url(LOGIN)
    expect(hire.get_by_text("Your access to this account is turned off.")).to_be_visible()
    hire.screenshot(path=str(ARTIFACTS / "directory_sync_deactivated.png"), full_page=True)
    # A reload cannot bring the session back either (the refresh runs the same check).
    hire.goto("/account")
    expect(hire).to_have_url(LOGIN)
    context.close()

    # Revoking the Admin's token: the directory's next request is refused.
    sync.get_by_role("button", name=f"Revoke scim_…{token[-4:]}").click()
    page.get_by_role("dialog", name="Revoke SCIM token").get_by_role(
        "button", name="Revoke"
    ).click()
    expect(sync.get_by_role("table", name="SCIM tokens").get_by_role("row")).to_have_count(2)
    refused = httpx.get(
        f"{console_url}/scim/v2/Users", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert refused.status_code == 401
