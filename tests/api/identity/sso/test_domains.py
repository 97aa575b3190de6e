"""Domains of Google SSO and their DNS proof (README "Verified domains"): /web/sso/domains, against
the DNS stand-in (devstack/dns_server.py) through the real resolver adapter."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from api.models import DomainState, SsoDomain
from devstack.app import create_dev_app
from devstack.stack import Stack
from tests.api.conftest import (
    MakeUser,
    SignedIn,
    mails_to,
    publish_txt,
    unique_domain,
    verified_domain,
)

# Free, disposable and special-use (RFC 6761) email domains: api/kernel/emails.py's rule.
PUBLIC = ("gmail.com", "Yahoo.com", "outlook.com", "mailinator.com", "acme.test")
NOT_DOMAINS = ("localhost", "not a domain", "-acme.dev", "acme..dev", "10.0.0.1", "a_b.dev")
REFUSALS = {
    "PublicEmailDomain": (
        "Public email domains such as gmail.com cannot be added: add your company's own domain."
    ),
    "InvalidDomain": "Enter a domain name such as example.com.",
}


async def _add(client: httpx.AsyncClient, who: SignedIn, domain: str) -> httpx.Response:
    return await client.post("/web/sso/domains", headers=who.headers, json={"domain": domain})


async def _added(client: httpx.AsyncClient, who: SignedIn, domain: str) -> dict[str, Any]:
    response = await _add(client, who, domain)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()["domain"]
    return result


async def _verify(client: httpx.AsyncClient, who: SignedIn, domain_id: str) -> httpx.Response:
    return await client.post(f"/web/sso/domains/{domain_id}/verify", headers=who.headers)


async def _domains(client: httpx.AsyncClient, who: SignedIn) -> list[dict[str, Any]]:
    response = await client.get("/web/sso/domains", headers=who.headers)
    assert response.status_code == 200, response.text
    result: list[dict[str, Any]] = response.json()["domains"]
    return result


class TestAdd:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post("/web/sso/domains", json={"domain": "acme.dev"})
        assert response.status_code == 401

    async def test_adds_a_pending_domain_with_its_txt_record(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        added = await _added(client, me, f"  {domain.upper()}.  ")
        assert added["domain"] == domain
        assert added["state"] == "Pending"
        assert added["checkedAt"] is None and added["verifiedAt"] is None
        assert added["failure"] is None and added["message"] is None
        record = added["record"]
        assert record["type"] == "TXT"
        assert record["name"] == domain
        token = record["value"].removeprefix("autostep-verification=")
        assert len(token) == 32 and token != record["value"]
        assert await _domains(client, me) == [added]
        # Every domain gets its own token.
        other = await _added(client, me, unique_domain())
        assert other["record"]["value"] != record["value"]

    @pytest.mark.parametrize(
        ("domain", "code"),
        [
            *((public, "PublicEmailDomain") for public in PUBLIC),
            *((name, "InvalidDomain") for name in NOT_DOMAINS),
        ],
    )
    async def test_refusals(
        self, client: httpx.AsyncClient, make_user: MakeUser, domain: str, code: str
    ) -> None:
        me = await make_user()
        response = await _add(client, me, domain)
        assert response.status_code == 400
        assert response.json() == {"code": code, "message": REFUSALS[code]}
        assert await _domains(client, me) == []

    async def test_blank_is_422(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        me = await make_user()
        response = await _add(client, me, "   ")
        assert response.status_code == 422
        assert response.json()["message"] == "Enter a domain"

    async def test_twice_is_409(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        me = await make_user()
        domain = unique_domain()
        await _added(client, me, domain)
        again = await _add(client, me, domain.upper())
        assert again.status_code == 409
        assert again.json() == {
            "code": "DomainAlreadyAdded",
            "message": "This domain is already on the list.",
        }


class TestVerify:
    async def test_the_published_record_verifies_it(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        added = await _added(client, me, domain)
        # Among the other TXT records a real domain has (SPF...).
        await publish_txt(client, domain, "v=spf1 -all", added["record"]["value"])
        response = await _verify(client, me, added["id"])
        assert response.status_code == 200, response.text
        verified = response.json()["domain"]
        assert verified["state"] == "Verified"
        assert verified["failure"] is None and verified["message"] is None
        assert verified["checkedAt"] is not None
        assert verified["verifiedAt"] == verified["checkedAt"]
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["sso"]["domains"] == [domain]

    async def test_a_domain_that_does_not_exist(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        added = await _added(client, me, domain)
        response = await _verify(client, me, added["id"])
        assert response.status_code == 200, response.text
        failed = response.json()["domain"]
        assert failed["state"] == "Failed"
        assert failed["failure"] == "DomainNotFound"
        assert failed["message"] == f"{domain} does not exist in DNS: check its spelling."
        assert failed["checkedAt"] is not None and failed["verifiedAt"] is None

    @pytest.mark.parametrize("values", [[], ["v=spf1 include:_spf.google.com ~all"]])
    async def test_no_record(
        self, client: httpx.AsyncClient, make_user: MakeUser, values: list[str]
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        added = await _added(client, me, domain)
        await publish_txt(client, domain, *values)
        failed = (await _verify(client, me, added["id"])).json()["domain"]
        assert failed["state"] == "Failed"
        assert failed["failure"] == "RecordNotFound"
        assert failed["message"] == (
            f"No autostep-verification TXT record was found at {domain}. Add the record at "
            "your DNS provider; a new record can take a few minutes to appear."
        )

    async def test_a_wrong_token(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        me = await make_user()
        domain = unique_domain()
        added = await _added(client, me, domain)
        await publish_txt(client, domain, "autostep-verification=someone-elses-token")
        failed = (await _verify(client, me, added["id"])).json()["domain"]
        assert failed["state"] == "Failed"
        assert failed["failure"] == "WrongToken"
        assert failed["message"] == (
            f"The autostep-verification TXT record at {domain} has a different token: copy "
            "the record shown here exactly."
        )
        # Published right, it verifies on the next try.
        await publish_txt(client, domain, added["record"]["value"])
        assert (await _verify(client, me, added["id"])).json()["domain"]["state"] == "Verified"

    async def test_a_verified_domain_whose_record_went_is_lost(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        verified = await verified_domain(client, me.headers, domain)
        await publish_txt(client, domain)
        lost = (await _verify(client, me, verified["id"])).json()["domain"]
        assert lost["state"] == "Lost"
        assert lost["failure"] == "RecordNotFound"
        assert lost["verifiedAt"] == verified["verifiedAt"]
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["sso"]["domains"] == []

    async def test_an_unknown_id_is_404(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        response = await _verify(client, me, str(uuid.uuid4()))
        assert response.status_code == 404
        assert response.json() == {"code": "NotFound", "message": "Domain not found"}


@pytest.fixture
def silent_nameserver() -> Iterator[int]:
    """A UDP port where a "nameserver" receives queries and never answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


@pytest.fixture
async def app_with_hung_dns(stack: Stack, silent_nameserver: int) -> Any:
    application = create_dev_app(
        stack.with_settings(dns_port=silent_nameserver, dns_timeout_s=0.2, dns_lifetime_s=0.5)
    )
    async with application.router.lifespan_context(application):
        yield application


class TestDnsUnreachable:
    async def test_is_503_and_changes_nothing(
        self, app_with_hung_dns: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        added = await _added(client, me, domain)
        await publish_txt(client, domain, added["record"]["value"])
        transport = httpx.ASGITransport(app=app_with_hung_dns)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as hung:
            response = await _verify(hung, me, added["id"])
        assert response.status_code == 503
        assert response.json() == {
            "code": "DnsUnavailable",
            "message": "We could not reach DNS; try again",
        }
        assert await _domains(client, me) == [added]


class TestRemove:
    async def test_removes_the_domain_and_its_auto_join(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        domain = unique_domain()
        verified = await verified_domain(client, me.headers, domain)
        response = await client.delete(f"/web/sso/domains/{verified['id']}", headers=me.headers)
        assert response.status_code == 204
        assert await _domains(client, me) == []
        account = (await client.get("/web/account", headers=me.headers)).json()["account"]
        assert account["sso"]["domains"] == []
        again = await client.delete(f"/web/sso/domains/{verified['id']}", headers=me.headers)
        assert again.status_code == 404


class TestTenantBoundary:
    async def test_another_account_cannot_read_verify_or_remove_a_domain(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner = await make_user(account_name="Owner Co")
        intruder = await make_user(account_name="Intruder Co")
        domain = unique_domain()
        added = await _added(client, owner, domain)
        await publish_txt(client, domain, added["record"]["value"])

        assert await _domains(client, intruder) == []
        verify = await _verify(client, intruder, added["id"])
        assert verify.status_code == 404
        assert added["record"]["value"] not in verify.text
        remove = await client.delete(f"/web/sso/domains/{added['id']}", headers=intruder.headers)
        assert remove.status_code == 404
        # The owner's domain is untouched: still there, still Pending, never checked.
        assert await _domains(client, owner) == [added]

    async def test_anonymous_is_401_everywhere(self, client: httpx.AsyncClient) -> None:
        some_id = uuid.uuid4()
        assert (await client.get("/web/sso/domains")).status_code == 401
        assert (await client.post(f"/web/sso/domains/{some_id}/verify")).status_code == 401
        assert (await client.delete(f"/web/sso/domains/{some_id}")).status_code == 401


class TestOneDomainOneAccount:
    async def test_a_second_account_takes_over_only_once_the_first_record_is_gone(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        domain = unique_domain()
        first = await make_user(account_name="First Co", email=f"ann@{domain}")
        await make_user(account=first.account, email=f"bob@{domain}")
        held = await verified_domain(client, first.headers, domain)
        second = await make_user(account_name="Second Co")
        claim = await _added(client, second, domain)  # anyone may add it: it proves nothing

        # Both records published: the first account keeps it.
        await publish_txt(client, domain, held["record"]["value"], claim["record"]["value"])
        refused = (await _verify(client, second, claim["id"])).json()["domain"]
        assert refused["state"] == "Failed"
        assert refused["failure"] == "VerifiedByAnotherAccount"
        assert refused["message"] == (
            f"Another account has verified {domain} and its TXT record is still published."
        )
        assert [d["state"] for d in await _domains(client, first)] == ["Verified"]

        # The first account's record is gone: the second proves it and takes it over.
        await publish_txt(client, domain, claim["record"]["value"])
        taken = (await _verify(client, second, claim["id"])).json()["domain"]
        assert taken["state"] == "Verified"
        [lost] = await _domains(client, first)
        # From its side, the record at the domain now carries another token.
        assert (lost["state"], lost["failure"]) == ("Lost", "WrongToken")
        first_account = (await client.get("/web/account", headers=first.headers)).json()
        assert first_account["account"]["sso"]["domains"] == []
        # Every user of the first account is told.
        for user in (f"ann@{domain}", f"bob@{domain}"):
            mail = await mails_to(client, user)
            assert mail[0]["subject"] == f"Google sign-in auto-join paused for {domain}"
            assert held["record"]["value"] in mail[0]["body"]
            assert "First Co" in mail[0]["body"]

    async def test_the_database_holds_one_verified_row_per_domain(
        self, app: FastAPI, make_user: MakeUser
    ) -> None:
        domain = unique_domain()
        first = await make_user(account_name="One")
        second = await make_user(account_name="Two")
        rows = [
            {
                "account_id": who.account.id,
                "domain": domain,
                "token": uuid.uuid4().hex,
                "state": DomainState.VERIFIED,
            }
            for who in (first, second)
        ]
        async with app.state.resources.sessionmaker() as db:
            await db.execute(insert(SsoDomain).values(rows[0]))
            with pytest.raises(IntegrityError):
                await db.execute(insert(SsoDomain).values(rows[1]))
            await db.rollback()
