"""Signing in through an account's SAML connection (README "SAML single sign-on"), end to end
through the stand-ins: 'Sign in with SSO' -> the hosted UI -> the SAML identity provider ->
``/saml2/idpresponse`` (checked as Cognito checks it) -> the code exchange, which creates or
links the person's user in the connection's account. And the test sign-in."""

from __future__ import annotations

import asyncio
import base64
import html
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text

from api.adapters.cognito import CognitoClient
from api.models import AuthType, Role, SamlConnection, User
from devstack import saml_idp
from devstack.saml_idp import Person
from tests.api.conftest import (
    REDIRECT_URI,
    Authorized,
    MakeUser,
    SignedIn,
    exchange,
    unique_domain,
    verified_domain,
)

TEST_REDIRECT_URI = "http://testserver/oauth/saml-test"


def _field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found, f"no {name} in the page"
    return html.unescape(found.group(1))


@dataclass
class AtAcs:
    """The signed response the identity provider's page posts to the ACS URL, and where."""

    acs_url: str
    saml_response: str
    relay_state: str


async def at_identity_provider(
    client: httpx.AsyncClient,
    authorize_url: str,
    person: Person,
    sso_path: str = "/dev/saml-idp/sso",
) -> AtAcs:
    """Follow the hosted UI to the identity provider's page (at ``sso_path``) and sign
    ``person`` in there."""
    to_idp = await client.get(authorize_url)
    assert to_idp.status_code == 302, to_idp.text
    sso = urlsplit(to_idp.headers["location"])
    assert sso.path == sso_path
    page = await client.get(f"{sso.path}?{sso.query}")
    assert page.status_code == 200, page.text
    assert "Email" in page.text and "First name" in page.text and "Continue" in page.text
    hidden = {
        html.unescape(name): html.unescape(value)
        for name, value in re.findall(
            r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page.text
        )
    }
    assert {"SAMLRequest", "RelayState"} <= set(hidden)
    posted = await client.post(
        sso.path,
        data={
            **hidden,
            "email": person.email,
            "given_name": person.first_name,
            "family_name": person.last_name,
        },
    )
    assert posted.status_code == 200
    acs = re.search(r'<form method="post" action="([^"]+)"', posted.text)
    assert acs is not None
    return AtAcs(
        html.unescape(acs.group(1)),
        _field(posted.text, "SAMLResponse"),
        _field(posted.text, "RelayState"),
    )


async def post_to_acs(
    client: httpx.AsyncClient, at: AtAcs, response: str | None = None
) -> dict[str, str]:
    """Post the (possibly altered) response to the ACS URL; the query Cognito's stand-in
    redirects back to the app client with."""
    assert at.acs_url == "http://testserver/saml2/idpresponse"
    back = await client.post(
        "/saml2/idpresponse",
        data={"SAMLResponse": response or at.saml_response, "RelayState": at.relay_state},
    )
    assert back.status_code == 302, back.text
    return {k: v[0] for k, v in parse_qs(urlsplit(back.headers["location"]).query).items()}


async def sso_at_identity_provider(
    client: httpx.AsyncClient, person: Person, email: str | None = None
) -> AtAcs:
    """'Sign in with SSO' with ``email`` (default: ``person``'s), then ``person`` signs in at
    the identity provider."""
    start = await client.post(
        "/web/session/authorize/sso",
        json={"email": email or person.email, "redirectUri": REDIRECT_URI},
    )
    assert start.status_code == 200, start.text
    return await at_identity_provider(client, start.json()["authorizeUrl"], person)


async def _until_waiting_on_a_lock(app: FastAPI) -> None:
    """Return once a session of the test database waits on a lock (10 s at most)."""
    for _ in range(200):
        async with app.state.resources.read_engine.connect() as connection:
            waiting = await connection.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
            )
        if waiting:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("nobody waited on a lock")


def resigned(
    app: FastAPI,
    at: AtAcs,
    *,
    sp_entity_id: str,
    lifetime_s: int = 300,
    destination: str | None = None,
    recipient: str | None = None,
) -> str:
    """A response to the same request, signed by the stand-in identity provider's key but
    made for ``sp_entity_id``, valid ``lifetime_s`` seconds, and with ``destination`` and
    ``recipient`` when given (base64, as posted)."""
    request_id = re.search(r'InResponseTo="([^"]+)"', base64.b64decode(at.saml_response).decode())
    assert request_id is not None
    document = saml_idp.signed_response(
        app.state.saml_idp_key,
        base_url="http://testserver",
        request_id=request_id.group(1),
        sp_entity_id=sp_entity_id,
        acs_url=at.acs_url,
        person=Person("jane@example-corp.com", "Jane", "Doe"),
        lifetime_s=lifetime_s,
        destination=destination,
        recipient=recipient,
    )
    return base64.b64encode(document.encode()).decode()


async def sign_in_with_sso(client: httpx.AsyncClient, person: Person) -> httpx.Response:
    """'Sign in with SSO' with ``person``'s email, through to the code exchange."""
    at = await sso_at_identity_provider(client, person)
    returned = await post_to_acs(client, at)
    assert "code" in returned, returned
    return await exchange(client, Authorized(returned["code"], returned["state"]))


async def connected_account(client: httpx.AsyncClient, make_user: MakeUser) -> tuple[SignedIn, str]:
    """An account with a verified domain and a SAML connection to the stand-in identity
    provider (set up from its metadata URL, fetched through the hosted_ui routing)."""
    domain = unique_domain("sso")
    owner = await make_user(email=f"owner@{domain}")
    await verified_domain(client, owner.headers, domain)
    saved = await client.put(
        "/web/sso/saml",
        headers=owner.headers,
        json={"metadataUrl": "http://testserver/dev/saml-idp/metadata"},
    )
    assert saved.status_code == 200, saved.text
    return owner, domain


@pytest.fixture(autouse=True)
def _stand_ins_reachable(hosted_ui: object) -> None:
    """The API's calls to http://testserver (the metadata URL, the token endpoint) reach
    the in-process stand-ins."""


class TestSignInWithSso:
    async def test_a_new_person_lands_in_the_account_as_a_member(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        person = Person(f"jane@{domain}", "Jane", "Doe")
        exchanged = await sign_in_with_sso(client, person)
        assert exchanged.status_code == 200, exchanged.text
        body = exchanged.json()
        token = body["tokens"]["accessToken"]
        # Straight into the account: no account choice, no join step.
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.status_code == 200, session.text
        assert session.json()["session"]["account"]["name"] == owner.account.name
        assert session.json()["session"]["user"]["role"] == Role.MEMBER.value
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        jane = next(u for u in users if u["email"] == person.email)
        assert (jane["firstName"], jane["lastName"], jane["authType"]) == (
            "Jane",
            "Doe",
            "SAML SSO",
        )
        # Cognito made the user of the identity with the attributes of the mapping.
        pool_user = await cognito.admin_get_user(body["identity"]["username"])
        assert body["identity"]["username"].endswith(f"_{person.email}")
        assert pool_user.attributes["given_name"] == "Jane"
        assert '"providerType": "SAML"' in pool_user.attributes["identities"]
        events = (await client.get("/web/audit-events", headers=owner.headers)).json()["events"]
        assert [e["action"] for e in events[:2]] == ["sign_in.succeeded", "user.joined"]

        # The next sign-in finds the same user.
        again = await sign_in_with_sso(client, person)
        assert again.status_code == 200
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert [u["email"] for u in users].count(person.email) == 1

    async def test_a_first_sign_in_racing_another_tab_of_the_same_person_lands_too(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        # Another tab's first sign-in of the same person has inserted their user and not yet
        # committed when this one inserts it too: the unique email makes ours wait, then
        # refuses it once the other commits. It signs in as that user (it was a 500).
        owner, domain = await connected_account(client, make_user)
        person = Person(f"twice@{domain}", "Tia", "Twice")
        returned = await post_to_acs(client, await sso_at_identity_provider(client, person))
        async with app.state.resources.sessionmaker() as db:
            provider = await db.scalar(
                select(SamlConnection.provider_name).where(
                    SamlConnection.account_id == owner.account.id
                )
            )
            other_tab = User(
                account_id=owner.account.id,
                identity_id=f"{provider}_{person.email}",
                first_name="Tia",
                last_name="Twice",
                email=person.email,
                auth_type=AuthType.SAML_SSO,
                role=Role.MEMBER,
            )
            db.add(other_tab)
            await db.flush()
            exchanging = asyncio.create_task(
                exchange(client, Authorized(returned["code"], returned["state"]))
            )
            await _until_waiting_on_a_lock(app)
            await db.commit()
        exchanged = await exchanging
        assert exchanged.status_code == 200, exchanged.text
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert [u["email"] for u in users].count(person.email) == 1
        token = exchanged.json()["tokens"]["accessToken"]
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.status_code == 200, session.text
        assert session.json()["session"]["user"]["id"] == str(other_tab.id)

    async def test_an_existing_user_is_linked(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        grace = await make_user(account=owner.account, email=f"grace@{domain}", role=Role.ADMIN)
        exchanged = await sign_in_with_sso(client, Person(grace.user.email, "Grace", "Hopper"))
        assert exchanged.status_code == 200, exchanged.text
        token = exchanged.json()["tokens"]["accessToken"]
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.json()["session"]["user"]["id"] == str(grace.user.id)
        assert session.json()["session"]["user"]["role"] == "Admin"
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert next(u for u in users if u["id"] == str(grace.user.id))["authType"] == "SAML SSO"
        # A user of the connection signs in through it from now on.
        password = await client.post(
            "/web/session/sign-in", json={"email": grace.user.email, "password": grace.password}
        )
        assert password.json()["code"] == "MustSignInWithSso"
        events = (await client.get("/web/audit-events", headers=owner.headers)).json()["events"]
        assert "user.sso_linked" in [e["action"] for e in events]

    async def test_an_email_outside_the_verified_domains_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain = await connected_account(client, make_user)
        # The identity provider asserts an address at a domain the account never proved.
        other = f"eve@{unique_domain('elsewhere')}"
        at = await sso_at_identity_provider(client, Person(other, "Eve", "Doe"), f"x@{domain}")
        returned = await post_to_acs(client, at)
        exchanged = await exchange(client, Authorized(returned["code"], returned["state"]))
        assert exchanged.status_code == 400
        assert exchanged.json()["code"] == "SsoSignInRefused"
        assert other in exchanged.json()["message"]
        assert "refresh_token" not in exchanged.cookies

    async def test_another_accounts_user_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain = await connected_account(client, make_user)
        await make_user(email=f"taken@{domain}")  # in an account of its own
        exchanged = await sign_in_with_sso(client, Person(f"taken@{domain}", "Ta", "Ken"))
        assert exchanged.status_code == 400
        assert exchanged.json() == {
            "code": "SsoSignInRefused",
            "message": (
                f"taken@{domain} already belongs to another account of the console. Ask your "
                "administrator."
            ),
        }


class TestWhatTheIdentityProviderAsserts:
    """The email and names a SAML identity provider asserts are checked as every other way in
    checks them (api/kernel/emails.py; names as User Management takes them): an identity provider is
    typed in by a customer's administrator, not trusted to be well-formed."""

    @pytest.mark.parametrize(
        ("local", "first", "last", "refusal"),
        [
            (
                "jane..doe",
                "Jane",
                "Doe",
                "Your identity provider sent 'jane..doe@{domain}', which is not a valid email "
                "address. Ask your administrator to send your work email address.",
            ),
            (
                "jane",
                "J" * 101,
                "Doe",
                "Your identity provider sent a first name longer than 100 characters. Ask your "
                "administrator to correct it at the identity provider.",
            ),
            (
                "jane",
                "Jane",
                "Doe\nDROP",
                "Your identity provider sent a last name with control characters (such as a "
                "line break). Ask your administrator to correct it at the identity provider.",
            ),
        ],
    )
    async def test_a_malformed_identity_is_refused_and_creates_nobody(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        local: str,
        first: str,
        last: str,
        refusal: str,
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        person = Person(f"{local}@{domain}", first, last)
        at = await sso_at_identity_provider(client, person, f"jane@{domain}")
        returned = await post_to_acs(client, at)
        exchanged = await exchange(client, Authorized(returned["code"], returned["state"]))
        assert exchanged.status_code == 400, exchanged.text
        assert exchanged.json() == {
            "code": "SsoSignInRefused",
            "message": refusal.format(domain=domain),
        }
        assert "refresh_token" not in exchanged.cookies
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert [u["email"] for u in users] == [owner.user.email]

    async def test_the_test_sign_in_names_it_too(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        at = await at_identity_provider(
            client,
            await TestTestSignIn().start(client, owner),
            Person(f"kat@{domain}", "K" * 101, "Johnson"),
        )
        result = await report_test(client, owner.headers, await post_to_acs(client, at))
        assert result.json()["test"]["problem"] == (
            "The identity provider sent a first name longer than 100 characters: correct it at "
            "the identity provider."
        )


class TestRequiringIt:
    async def test_an_admin_signed_in_through_it_requires_it_and_passwords_stop(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        grace = await make_user(account=owner.account, email=f"grace@{domain}", role=Role.ADMIN)
        # The Owner signs in through the connection (their user is linked), then requires it.
        exchanged = await sign_in_with_sso(client, Person(owner.user.email, "Ada", "Lovelace"))
        assert exchanged.status_code == 200, exchanged.text
        as_saml = {"Authorization": f"Bearer {exchanged.json()['tokens']['accessToken']}"}
        required = await client.post(
            "/web/sso/saml/requirement", headers=as_saml, json={"requireSamlSSO": True}
        )
        assert required.status_code == 200, required.text
        assert required.json()["sso"]["isSamlSSO"] is True
        # The Owner's password session of before belongs to the pool user they left.
        ended = await client.get("/web/account", headers=owner.headers)
        assert ended.status_code == 401
        assert ended.json()["code"] == "SessionEnded"
        # A password user of the account is refused at the next request.
        refused = await client.get("/web/account", headers=grace.headers)
        assert refused.status_code == 401
        assert refused.json() == {
            "code": "SamlSignInRequired",
            "message": "This user must sign in with SSO",
        }
        # The SAML session goes on, and people of the domain keep arriving through it.
        assert (await client.get("/web/account", headers=as_saml)).status_code == 200
        newcomer = await sign_in_with_sso(client, Person(f"new@{domain}", "New", "Comer"))
        assert newcomer.status_code == 200


class TestRemovingIt:
    async def test_its_people_set_a_password_with_forgot_password(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        person = Person(f"sso-only@{domain}", "Sam", "Sso")
        assert (await sign_in_with_sso(client, person)).status_code == 200
        assert (await client.delete("/web/sso/saml", headers=owner.headers)).status_code == 204
        # Someone who only ever used SSO has no pool user of their email: one is made for the
        # reset, and its code reaches their mailbox only.
        asked = await client.post("/web/session/forgot-password", json={"email": person.email})
        assert asked.status_code == 200, asked.text
        code = (await client.get("/dev/mailbox", params={"to": person.email})).json()[0]["code"]
        reset = await client.post(
            "/web/session/confirm-forgot-password",
            json={"email": person.email, "code": code, "newPassword": "A-new-password-42!"},
        )
        assert reset.status_code == 200, reset.text
        token = reset.json()["tokens"]["accessToken"]
        session = await client.get("/web/session", headers={"Authorization": f"Bearer {token}"})
        assert session.json()["session"]["account"]["name"] == owner.account.name
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]
        assert next(u for u in users["users"] if u["email"] == person.email)["authType"] == "Email"


class TestResponseChecks:
    """The hosted-UI stand-in refuses responses as Cognito does (attacks first)."""

    async def test_a_response_changed_after_signing_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain = await connected_account(client, make_user)
        at = await sso_at_identity_provider(client, Person(f"jane@{domain}", "Jane", "Doe"))
        document = base64.b64decode(at.saml_response).decode()
        assert document.count(f"jane@{domain}") >= 2
        tampered = document.replace(f"jane@{domain}", f"ceo@{domain}")
        returned = await post_to_acs(client, at, base64.b64encode(tampered.encode()).decode())
        assert "code" not in returned
        assert returned["error"] == "invalid_request"
        assert "SignatureError" in returned["error_description"]

    async def test_an_expired_response_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        _, domain = await connected_account(client, make_user)
        at = await sso_at_identity_provider(client, Person(f"jane@{domain}", "Jane", "Doe"))
        settings = app.state.settings
        expired = resigned(
            app,
            at,
            sp_entity_id=f"urn:amazon:cognito:sp:{settings.cognito.user_pool_id}",
            lifetime_s=-60,
        )
        returned = await post_to_acs(client, at, expired)
        assert "code" not in returned
        assert returned["error"] == "invalid_request"
        assert "Condition not OK" in returned["error_description"]

    async def test_a_response_to_another_request_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain = await connected_account(client, make_user)
        person = Person(f"jane@{domain}", "Jane", "Doe")
        first = await sso_at_identity_provider(client, person)
        second = await sso_at_identity_provider(client, person)
        # The first request's valid response, posted for the second request (InResponseTo).
        replayed = AtAcs(second.acs_url, first.saml_response, second.relay_state)
        returned = await post_to_acs(client, replayed)
        assert "code" not in returned
        assert "UnsolicitedResponse" in returned["error_description"]
        # A RelayState is good once.
        assert (await post_to_acs(client, first)).get("code")
        again = await client.post(
            "/saml2/idpresponse",
            data={"SAMLResponse": first.saml_response, "RelayState": first.relay_state},
        )
        assert again.status_code == 400

    async def test_audience_is_the_pools(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        _, domain = await connected_account(client, make_user)
        at = await sso_at_identity_provider(client, Person(f"jane@{domain}", "Jane", "Doe"))
        for_another_sp = resigned(app, at, sp_entity_id="urn:amazon:cognito:sp:us-east-1_another")
        returned = await post_to_acs(client, at, for_another_sp)
        assert "code" not in returned
        assert returned["error"] == "invalid_request"
        assert "AudienceRestrictions conditions not satisfied" in returned["error_description"]

    @pytest.mark.parametrize(
        ("destination", "recipient", "refusal"),
        [
            # Made for another service provider's ACS URL and replayed here: the Response's
            # Destination and the assertion's Recipient both name where it was meant to go.
            (
                "https://other-sp.example.com/saml2/idpresponse",
                None,
                "The Response's Destination is not this ACS URL "
                "(http://testserver/saml2/idpresponse)",
            ),
            (
                "",
                None,
                "The Response has no Destination (it must be this ACS URL, "
                "http://testserver/saml2/idpresponse)",
            ),
            (
                None,
                "https://other-sp.example.com/saml2/idpresponse",
                "No bearer SubjectConfirmation of the assertion has this ACS URL "
                "(http://testserver/saml2/idpresponse) as its Recipient",
            ),
        ],
    )
    async def test_destination_and_recipient_are_this_acs_url(
        self,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        app: FastAPI,
        destination: str | None,
        recipient: str | None,
        refusal: str,
    ) -> None:
        _, domain = await connected_account(client, make_user)
        at = await sso_at_identity_provider(client, Person(f"jane@{domain}", "Jane", "Doe"))
        settings = app.state.settings
        elsewhere = resigned(
            app,
            at,
            sp_entity_id=f"urn:amazon:cognito:sp:{settings.cognito.user_pool_id}",
            destination=destination,
            recipient=recipient,
        )
        returned = await post_to_acs(client, at, elsewhere)
        assert "code" not in returned, returned
        assert returned["error"] == "invalid_request"
        assert returned["error_description"] == f"Invalid SAML response received: {refusal}"


async def report_test(
    client: httpx.AsyncClient, headers: dict[str, str], returned: dict[str, str]
) -> httpx.Response:
    """POST /web/sso/saml/test/result with what the test window came back with."""
    return await client.post(
        "/web/sso/saml/test/result",
        headers=headers,
        json={
            "code": returned["code"],
            "state": returned["state"],
            "redirectUri": TEST_REDIRECT_URI,
        },
    )


class TestTestSignIn:
    async def start(self, client: httpx.AsyncClient, owner: SignedIn) -> str:
        started = await client.post(
            "/web/sso/saml/test", headers=owner.headers, json={"redirectUri": TEST_REDIRECT_URI}
        )
        assert started.status_code == 200, started.text
        url = started.json()["authorizeUrl"]
        assert httpx.URL(url).params["redirect_uri"] == TEST_REDIRECT_URI
        return str(url)

    async def test_reports_what_the_identity_provider_sent(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        at = await at_identity_provider(
            client, await self.start(client, owner), Person(f"kat@{domain}", "Kat", "Johnson")
        )
        returned = await post_to_acs(client, at)
        result = await report_test(client, owner.headers, returned)
        assert result.status_code == 200, result.text
        test = result.json()["test"]
        assert (test["email"], test["firstName"], test["lastName"], test["problem"]) == (
            f"kat@{domain}",
            "Kat",
            "Johnson",
            None,
        )
        # It signs nobody in and creates no user.
        assert "refresh_token" not in result.cookies
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]["users"]
        assert f"kat@{domain}" not in [u["email"] for u in users]
        shown = (await client.get("/web/sso/saml", headers=owner.headers)).json()
        assert shown["connection"]["lastTest"] == test

    async def test_names_what_is_wrong(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await connected_account(client, make_user)
        other = f"kat@{unique_domain('personal')}"
        at = await at_identity_provider(
            client, await self.start(client, owner), Person(other, "Kat", "Johnson")
        )
        returned = await post_to_acs(client, at)
        result = await report_test(client, owner.headers, returned)
        problem = result.json()["test"]["problem"]
        assert problem.startswith(f"The identity provider sent {other}, which is not at a verified")

    async def test_a_code_from_another_browser_reports_nothing(
        self, client: httpx.AsyncClient, make_user: MakeUser, app: FastAPI
    ) -> None:
        owner, domain = await connected_account(client, make_user)
        at = await at_identity_provider(
            client, await self.start(client, owner), Person(f"kat@{domain}", "Kat", "J")
        )
        returned = await post_to_acs(client, at)
        # Another browser (no saml_test_flow cookie) cannot use the code.
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
            result = await report_test(other, owner.headers, returned)
        assert result.status_code == 400
        assert result.json()["code"] == "SamlTestFailed"

    async def test_needs_a_connection(self, client: httpx.AsyncClient, make_user: MakeUser) -> None:
        owner = await make_user(auth_type=AuthType.EMAIL)
        started = await client.post(
            "/web/sso/saml/test", headers=owner.headers, json={"redirectUri": TEST_REDIRECT_URI}
        )
        assert started.status_code == 400
        assert started.json()["code"] == "SamlConnectionRequired"
