"""Which addresses a directory may provision (README "Directory sync (SCIM)"): only at the
account's verified domains, and never an answer that tells whether an address is a user of
another account; two directories racing for one address make one user."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from api.models import AuthType, User
from tests.api.conftest import MakeUser, google_sso_for, unique_domain
from tests.api.identity.directory.conftest import USER_SCHEMA, MakeDirectory, scim_error


def _user(email: str) -> dict[str, Any]:
    return {
        "schemas": [USER_SCHEMA],
        "userName": email,
        "name": {"givenName": "Pat", "familyName": "Lee"},
        "emails": [{"value": email, "type": "work", "primary": True}],
        "active": True,
    }


async def test_a_directory_provisions_only_at_the_accounts_verified_domains(
    app: FastAPI, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    elsewhere = await directory.request("POST", "/Users", _user(f"pat@{unique_domain('else')}"))
    detail = scim_error(elsewhere, 400, "invalidValue")
    assert directory.domain is not None and directory.domain in detail, detail
    # An account with no verified domain provisions nobody.
    bare = await make_directory(verify=False)
    refused = await bare.request("POST", "/Users", _user(f"pat@{unique_domain('bare')}"))
    assert "no verified domain" in scim_error(refused, 400, "invalidValue")
    async with app.state.resources.sessionmaker() as db:
        rows = await db.scalar(
            select(func.count())
            .select_from(User)
            .where(User.account_id.in_([directory.owner.account.id, bare.owner.account.id]))
        )
    assert rows == 2  # the two Owners only


async def test_an_address_of_another_account_is_answered_as_any_address_of_its_domain(
    make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    directory = await make_directory()
    domain = unique_domain("theirs")
    theirs = await make_user(email=f"someone@{domain}")
    nobody = await directory.request("POST", "/Users", _user(f"nobody@{domain}"))
    taken = await directory.request("POST", "/Users", _user(theirs.user.email))
    assert (taken.status_code, taken.json()) == (nobody.status_code, nobody.json())
    scim_error(taken, 400, "invalidValue")
    # Nor by looking it up: the filter reads the token's account only.
    found = await directory.request(
        "GET", "/Users", params={"filter": f'userName eq "{theirs.user.email}"'}
    )
    assert found.json()["totalResults"] == 0


async def test_a_person_of_the_accounts_domain_with_an_account_elsewhere(
    make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    # Someone signed up on their own with their work address before the company verified
    # its domain: the address is the company's, and the same answer as a user of its own.
    directory = await make_directory()
    early = await make_user(email=directory.email("early"))
    ours = await directory.create(directory.email("ours"))
    again = await directory.request("POST", "/Users", _user(ours["userName"]))
    elsewhere = await directory.request("POST", "/Users", _user(early.user.email))
    assert scim_error(elsewhere, 409, "uniqueness") == scim_error(again, 409, "uniqueness")


async def test_two_directories_racing_for_one_address_make_one_user(
    app: FastAPI, client: httpx.AsyncClient, make_directory: MakeDirectory, make_user: MakeUser
) -> None:
    # An account that requires single sign-on: the directory's users get no pool user, so the
    # race is decided by the database alone.
    domain = unique_domain("race")
    directory = await make_directory(await make_user(auth_type=AuthType.GOOGLE_SSO), verify=False)
    await google_sso_for(app, client, directory.owner, domain)
    for _ in range(3):
        email = f"race-{secrets.token_hex(3)}@{domain}"
        first, second = await asyncio.gather(
            directory.request("POST", "/Users", _user(email)),
            directory.request("POST", "/Users", {**_user(email), "userName": f"x{email}"}),
        )
        assert sorted([first.status_code, second.status_code]) == [201, 409], (
            first.text,
            second.text,
        )
        loser = first if first.status_code == 409 else second
        scim_error(loser, 409, "uniqueness")
        async with app.state.resources.sessionmaker() as db:
            rows = await db.scalar(
                select(func.count()).select_from(User).where(func.lower(User.email) == email)
            )
        assert rows == 1
