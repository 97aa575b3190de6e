"""Helpers of the passkey tests: add a passkey through the API as the console does, with the
software authenticator (tests/api/identity/passkeys/authenticator.py)."""

from __future__ import annotations

from typing import Any

import httpx

from devstack.bootstrap import passkey_relying_party_id
from tests.api.conftest import SignedIn
from tests.api.identity.passkeys.authenticator import SoftAuthenticator

# The tests' console is http://testserver: its relying party is "testserver", and a browser
# would hold WebAuthn to the secure origin of that name.
RP_ID = passkey_relying_party_id("http://testserver")
ORIGIN = f"https://{RP_ID}"


async def creation_options(
    client: httpx.AsyncClient, user: SignedIn, code: str | None = None
) -> httpx.Response:
    """``POST /web/passkey-registration`` with the user's password (and ``code``)."""
    body: dict[str, Any] = {"password": user.password}
    if code is not None:
        body["code"] = code
    return await client.post("/web/passkey-registration", headers=user.headers, json=body)


async def add_passkey(
    client: httpx.AsyncClient,
    user: SignedIn,
    name: str = "MacBook",
    authenticator: SoftAuthenticator | None = None,
    code: str | None = None,
) -> tuple[SoftAuthenticator, dict[str, Any]]:
    """Add a passkey (``authenticator``, or a new one) for ``user`` named ``name``: the
    authenticator and the passkey's view."""
    authenticator = authenticator or SoftAuthenticator()
    started = await creation_options(client, user, code)
    assert started.status_code == 200, started.text
    added = await client.post(
        "/web/passkeys",
        headers=user.headers,
        json={
            "credential": authenticator.register(started.json()["options"], origin=ORIGIN),
            "name": name,
        },
    )
    assert added.status_code == 201, added.text
    return authenticator, added.json()["passkey"]


async def passkeys(client: httpx.AsyncClient, user: SignedIn) -> list[dict[str, Any]]:
    """``GET /web/passkeys``'s list."""
    listed = await client.get("/web/passkeys", headers=user.headers)
    assert listed.status_code == 200, listed.text
    found: list[dict[str, Any]] = listed.json()["passkeys"]
    return found
