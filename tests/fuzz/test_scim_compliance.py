"""The SCIM service against python-scim's compliance checker (README "Directory sync (SCIM)").

``scim2-tester``'s ``check_server`` reads the discovery endpoints of the dev stack's
``/scim/v2`` and runs its checks on Users and Groups: discovery, a random URL, and for each
resource type creation, reads, lists, searches with ``attributes``, replacement, deletion and
PATCH add, remove and replace of every attribute, with random values (a group's members are
users it creates). No result may be ERROR or CRITICAL.

The account it provisions into requires Google single sign-on and has its domain verified, as
a directory's account usually does: its users wait for their first sign-in without a pool
user. The console provisions people at the account's verified domains only, so the checker is
given the console's own User model with the addresses it may draw (:class:`_FreshAddresses`);
every other value is its own.
"""

from __future__ import annotations

import secrets
from collections import Counter
from typing import Annotated, Any, SupportsIndex, overload

import httpx
import httpx2
from pydantic import Field
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import Group, Required, ScimProvider
from scim2_tester import Status, check_server

from api.identity.directory.resources import Email, User
from tests.e2e.conftest import google_account_in_api, require_google_sso_in_api

CHECKED_RESOURCE_TYPES = ["User", "Group"]


class _FreshAddresses(list[str]):
    """An endless list of fresh addresses at one domain. scim2-tester fills an attribute from
    its field's ``examples`` when there are any (``random.choice``: the list's length and one
    index), and with ``<uuid>@<uuid>.com`` otherwise, which the console refuses; empty as far
    as pydantic's schema sees it."""

    def __init__(self, domain: str) -> None:
        super().__init__()
        self.domain = domain
        self.run = secrets.token_hex(3)

    def __len__(self) -> int:
        return 1 << 40

    @overload
    def __getitem__(self, index: SupportsIndex) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        if isinstance(index, slice):
            raise TypeError("fresh addresses are drawn one at a time")
        return f"scim-{self.run}-{int(index)}@{self.domain}"


def _provider(domain: str) -> ScimProvider:
    """The console's User (its emails drawn at ``domain``) and Group, as the checker's models."""

    class WorkEmail(Email):
        value: Annotated[str | None, Required.true] = Field(None, examples=_FreshAddresses(domain))

    class DirectoryUser(User):
        emails: Annotated[list[WorkEmail] | None, Required.true] = None

    return ScimProvider(models=[DirectoryUser, Group])


def _directory_token(console_url: str, domain: str) -> str:
    """A fresh account whose Google Owner requires Google SSO for a verified ``domain``, and a
    SCIM token generated for it through User Management."""
    token = google_account_in_api(console_url, f"owner@{domain}", "SCIM Compliance")
    headers = {"Authorization": f"Bearer {token}"}
    require_google_sso_in_api(console_url, headers, domain)
    created = httpx.post(f"{console_url}/web/scim-tokens", headers=headers, timeout=30)
    assert created.status_code == 201, created.text
    return str(created.json()["secret"])


def test_the_scim_service_passes_the_compliance_checker(console_url: str) -> None:
    domain = f"scim-{secrets.token_hex(4)}.dev"
    secret = _directory_token(console_url, domain)
    with httpx2.Client(
        base_url=f"{console_url}/scim/v2/",
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    ) as http:
        client = SyncSCIMClient(http, provider=_provider(domain))
        results = check_server(client, resource_types=CHECKED_RESOURCE_TYPES)
    failed = [r for r in results if r.status in (Status.ERROR, Status.CRITICAL)]
    passed = [r for r in results if r.status is Status.SUCCESS]
    assert not failed, "\n".join(f"{r.status.name} {r.title}: {r.reason}" for r in failed)
    # The checker ran: discovery, then the User and the Group lifecycles and every PATCH form.
    for title in ("object_creation", "object_replacement"):
        kinds = {type(r.data).__name__ for r in passed if r.title == title}
        assert kinds >= {"DirectoryUser", "Group"}, (title, kinds)
    counts = Counter(r.title for r in passed)
    for title in (
        "object_deletion",
        "check_add_attribute",
        "check_replace_attribute",
        "check_remove_attribute",
    ):
        assert counts[title] >= len(CHECKED_RESOURCE_TYPES), counts
