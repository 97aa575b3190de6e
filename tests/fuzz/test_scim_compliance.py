"""The SCIM service against python-scim's compliance checker (README "Directory sync (SCIM)").

``scim2-tester``'s ``check_server`` reads the discovery endpoints of the dev stack's
``/scim/v2`` and runs its checks on what they publish: discovery, a random URL, and for each
resource type creation, reads, lists, searches with ``attributes``, replacement, deletion and
PATCH add, remove and replace of every attribute, with random values. No result may be ERROR
or CRITICAL.

The account it provisions into requires Google single sign-on, as a directory's account
usually does: its users wait for their first sign-in without a pool user, so the checker may
change any attribute, the email included (an invited password user's email is fixed).
"""

from __future__ import annotations

import secrets

import httpx
import httpx2
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

from tests.e2e.conftest import google_account_in_api, require_google_sso_in_api

# The groups are the console's three fixed roles: creating, renaming or deleting a group is
# refused by design (tests/api/scim/test_groups.py holds that and the membership changes), so
# the checker's Group lifecycle, which creates groups of random names, is not run on them.
CHECKED_RESOURCE_TYPES = ["User"]


def _directory_token(console_url: str) -> str:
    """A fresh account whose Google Owner requires Google SSO for a verified domain, and a
    SCIM token generated for it through User Management."""
    domain = f"scim-{secrets.token_hex(4)}.dev"
    token = google_account_in_api(console_url, f"owner@{domain}", "SCIM Compliance")
    headers = {"Authorization": f"Bearer {token}"}
    require_google_sso_in_api(console_url, headers, domain)
    created = httpx.post(f"{console_url}/web/scim-tokens", headers=headers, timeout=30)
    assert created.status_code == 201, created.text
    return str(created.json()["secret"])


def test_the_scim_service_passes_the_compliance_checker(console_url: str) -> None:
    secret = _directory_token(console_url)
    with httpx2.Client(
        base_url=f"{console_url}/scim/v2/",
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    ) as http:
        client = SyncSCIMClient(http)
        results = check_server(client, resource_types=CHECKED_RESOURCE_TYPES)
    failed = [r for r in results if r.status in (Status.ERROR, Status.CRITICAL)]
    passed = [r for r in results if r.status is Status.SUCCESS]
    assert not failed, "\n".join(f"{r.status.name} {r.title}: {r.reason}" for r in failed)
    # The checker ran: discovery, then the User lifecycle and every PATCH form.
    titles = {r.title for r in passed}
    assert {"object_creation", "object_replacement", "object_deletion"} <= titles, titles
    assert {"check_add_attribute", "check_replace_attribute", "check_remove_attribute"} <= titles
