"""Fixtures of the SCIM tests: an account with a verified domain (the directory provisions
people at the account's verified domains only) and a SCIM token, generated through User
Management as an Admin would, and a client that speaks SCIM with it."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.api.conftest import MakeUser, SignedIn, unique_domain, verified_domain

SCIM = "application/scim+json"
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"


@dataclass
class Directory:
    """An account's identity provider: the Owner who set it up, its SCIM token and the
    account's verified domain (None: the account has none)."""

    owner: SignedIn
    token: str
    client: httpx.AsyncClient
    domain: str | None = None

    def email(self, prefix: str = "dir") -> str:
        """A fresh address at the account's verified domain."""
        assert self.domain is not None
        return f"{prefix}-{secrets.token_hex(4)}@{self.domain}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Content-Type": SCIM}

    async def request(self, method: str, path: str, body: Any = None, **kw: Any) -> httpx.Response:
        return await self.client.request(
            method, f"/scim/v2{path}", headers=self.headers, json=body, **kw
        )

    async def create(self, email: str, **attributes: Any) -> dict[str, Any]:
        body = {"schemas": [USER_SCHEMA], "userName": email, **attributes}
        body.setdefault("emails", [{"value": email, "type": "work", "primary": True}])
        body.setdefault("active", True)
        response = await self.request("POST", "/Users", body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    async def patch(self, path: str, *operations: dict[str, Any]) -> httpx.Response:
        return await self.request(
            "PATCH", path, {"schemas": [PATCH_SCHEMA], "Operations": list(operations)}
        )


MakeDirectory = Callable[..., Awaitable[Directory]]


async def generate_token(client: httpx.AsyncClient, owner: SignedIn) -> str:
    response = await client.post("/web/scim-tokens", headers=owner.headers)
    assert response.status_code == 201, response.text
    secret: str = response.json()["secret"]
    return secret


@pytest.fixture
def make_directory(client: httpx.AsyncClient, make_user: MakeUser) -> MakeDirectory:
    """An account (or ``owner``'s) with a SCIM token and a verified domain of its own (with
    ``verify=False``: none)."""

    async def make(owner: SignedIn | None = None, *, verify: bool = True) -> Directory:
        owner = owner or await make_user(account_name="Directory Corp")
        domain = None
        if verify:
            domain = unique_domain("dir")
            await verified_domain(client, owner.headers, domain)
        return Directory(owner, await generate_token(client, owner), client, domain)

    return make


def scim_error(response: httpx.Response, status: int, scim_type: str | None = None) -> str:
    """Assert ``response`` is the SCIM error ``status`` (and ``scimType``); returns its detail."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(SCIM), response.headers
    body = response.json()
    assert body["schemas"] == [ERROR_SCHEMA], body
    assert body["status"] == str(status), body
    assert body.get("scimType") == scim_type, body
    detail: str = body.get("detail", "")
    return detail
