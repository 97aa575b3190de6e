"""Third-party sign-in: the code exchange and the account choice after it (SPEC 2 OAuth
landing, 4 Third-party sign-in, 7 sso-accounts, 8 Code exchange)."""

from __future__ import annotations

import secrets

import httpx
import respx
from fastapi import FastAPI

from api.models import AuthType
from tests.api.conftest import (
    Federated,
    MakeFederated,
    MakeUser,
    authorize,
    exchange,
    google_sso_for,
    require_google_sso,
    sso_join,
    sso_lookup,
)


def _domain() -> str:
    return f"corp-{secrets.token_hex(4)}.com"


class TestCodeExchange:
    async def test_returns_tokens_and_identity(
        self, client: httpx.AsyncClient, hosted_ui: respx.MockRouter
    ) -> None:
        email = f"lin@{_domain()}"
        response = await exchange(client, await authorize(client, email, "Google", first="Lin"))
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["identity"]["username"].startswith("google_")
        assert body["identity"]["email"] == email
        assert (body["identity"]["firstName"], body["identity"]["lastName"]) == ("Lin", "Erated")
        assert body["tokens"]["accessToken"] and body["tokens"]["idToken"]
        # The refresh token never reaches script: it is an httpOnly cookie for /refresh only.
        assert "refreshToken" not in body["tokens"]
        cookie = next(
            c for c in response.headers.get_list("set-cookie") if c.startswith("refresh_token=")
        )
        assert "HttpOnly" in cookie
        assert "Path=/web/session;" in cookie
        assert "SameSite=strict" in cookie

    async def test_used_code_has_expired(
        self, client: httpx.AsyncClient, hosted_ui: respx.MockRouter
    ) -> None:
        authorized = await authorize(client, f"lin@{_domain()}")
        flow = next(c for c in client.cookies.jar if c.name == "oauth_flow")
        assert (await exchange(client, authorized)).status_code == 200
        assert "oauth_flow" not in client.cookies  # one exchange per flow
        # The same browser replaying the code with the same state and verifier.
        client.cookies.jar.set_cookie(flow)
        again = await exchange(client, authorized)
        assert again.status_code == 400
        assert again.json() == {
            "code": "ValidationCodeExpired",
            "message": "Validation code has expired",
        }

    async def test_other_failures_are_unable_to_authenticate(
        self, client: httpx.AsyncClient, hosted_ui: respx.MockRouter
    ) -> None:
        authorized = await authorize(client, f"lin@{_domain()}")
        wrong_redirect = await client.post(
            "/web/session/token",
            json={
                "code": authorized.code,
                "state": authorized.state,
                "redirectUri": "http://evil.example/x",
            },
        )
        # The stand-in, like Cognito, answers invalid_grant for a redirect mismatch.
        assert wrong_redirect.json()["code"] == "ValidationCodeExpired"
        authorized = await authorize(client, f"lin@{_domain()}")
        hosted_ui.routes.clear()
        hosted_ui.route(host="testserver").respond(500)
        hosted_ui.route().pass_through()
        down = await exchange(client, authorized)
        assert down.status_code == 400
        assert down.json() == {
            "code": "UnableToAuthenticate",
            "message": "Unable to authenticate user",
        }

    async def test_new_identity_has_no_account_yet(
        self, client: httpx.AsyncClient, make_federated: MakeFederated
    ) -> None:
        fed = await make_federated()
        session = await client.get("/web/session", headers=fed.headers)
        assert session.status_code == 403
        assert session.json()["code"] == "AccountRequired"


class TestLookup:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.get(
            "/web/sso-accounts", params={"cognitoId": "google_1", "email": "a@b.com"}
        )
        assert response.status_code == 401

    async def test_lists_accounts_with_google_sso_for_the_domain(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        domain = _domain()
        owner = await make_user(account_name="Globex", email=f"owner@{domain}")
        await make_user(account=owner.account, email=f"second@{domain}")
        await google_sso_for(app, client, owner, domain)
        await make_user(account_name="No SSO here", email=f"x@{domain}")
        fed = await make_federated(f"newbie@{domain}")
        response = await client.get(
            "/web/sso-accounts",
            params={"cognitoId": fed.username, "email": fed.email},
            headers=fed.headers,
        )
        assert response.status_code == 200
        assert response.json() == {
            "accounts": [
                {
                    "accountId": str(owner.account.id),
                    "accountName": "Globex",
                    "usersCount": 2,
                    "refusal": None,
                }
            ],
            "domain": domain,
        }

    async def test_someone_elses_identity_is_refused(
        self, client: httpx.AsyncClient, make_federated: MakeFederated
    ) -> None:
        fed = await make_federated()
        other = await make_federated()
        response = await client.get(
            "/web/sso-accounts",
            params={"cognitoId": other.username, "email": other.email},
            headers=fed.headers,
        )
        assert response.status_code == 400
        wrong_email = await client.get(
            "/web/sso-accounts",
            params={"cognitoId": fed.username, "email": other.email},
            headers=fed.headers,
        )
        assert wrong_email.status_code == 400

    async def test_only_verified_domains_count(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        domain = _domain()
        owner = await make_user(account_name="Pending Co", email=f"owner@{domain}")
        added = await client.post(
            "/web/sso/domains", headers=owner.headers, json={"domain": domain}
        )
        assert added.json()["domain"]["state"] == "Pending"
        await require_google_sso(app, owner.account)
        fed = await make_federated(f"early@{domain}")
        lookup = await sso_lookup(client, fed)
        assert lookup.json() == {"accounts": [], "domain": domain}
        joined = await sso_join(client, fed, owner.account.id)
        assert joined.status_code == 404

    async def test_a_hosted_domain_must_be_the_emails_domain(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        domain = _domain()
        owner = await make_user(account_name="Hosted", email=f"owner@{domain}")
        await google_sso_for(app, client, owner, domain)
        # A Workspace account of another company carrying an address at this domain.
        stranger = await make_federated(f"guest@{domain}", hosted_domain=_domain())
        lookup = await sso_lookup(client, stranger)
        assert lookup.json() == {"accounts": [], "domain": domain}
        joined = await sso_join(client, stranger, owner.account.id)
        assert (joined.status_code, joined.json()["code"]) == (404, "NotFound")
        # The domain's own Workspace account finds it.
        member = await make_federated(f"member@{domain}", hosted_domain=domain.upper())
        lookup = await sso_lookup(client, member)
        assert [a["accountName"] for a in lookup.json()["accounts"]] == ["Hosted"]

    async def test_github_identities_get_no_accounts(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        domain = _domain()
        owner = await make_user(email=f"owner@{domain}")
        await google_sso_for(app, client, owner, domain)
        fed = await make_federated(f"dev@{domain}", provider="Github")
        response = await client.get(
            "/web/sso-accounts",
            params={"cognitoId": fed.username, "email": fed.email},
            headers=fed.headers,
        )
        assert response.json() == {"accounts": [], "domain": domain}


class TestJoin:
    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post(
            "/web/sso-accounts/join",
            json={
                "accountId": "00000000-0000-0000-0000-000000000000",
                "userFirstName": "a",
                "userLastName": "b",
                "userEmail": "c@d.com",
                "userIdentityId": "google_1",
            },
        )
        assert response.status_code == 401

    async def test_joins_an_account_with_google_sso_for_the_domain(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        domain = _domain()
        owner = await make_user(
            account_name="Umbrella", email=f"owner@{domain}", auth_type=AuthType.GOOGLE_SSO
        )
        await google_sso_for(app, client, owner, domain)
        fed = await make_federated(f"joiner@{domain}")
        response = await sso_join(client, fed, owner.account.id)
        assert response.status_code == 204, response.text
        session = (await client.get("/web/session", headers=fed.headers)).json()["session"]
        assert session["account"]["name"] == "Umbrella"
        assert session["user"]["firstName"] == "Jo"
        users = (await client.get("/web/account", headers=owner.headers)).json()["account"]
        assert "Google SSO" in {u["authType"] for u in users["users"]}
        again = await sso_join(client, fed, owner.account.id)
        assert again.status_code == 409

    async def test_cannot_join_another_tenant_by_its_id(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        no_sso = await make_user(account_name="Closed")
        other_domain = await make_user(account_name="Elsewhere")
        await google_sso_for(app, client, other_domain, _domain())
        fed = await make_federated(f"guess@{_domain()}")
        for account in (no_sso.account, other_domain.account):
            response = await sso_join(client, fed, account.id)
            assert response.status_code == 404
            assert response.json()["code"] == "NotFound"


class TestCreate:
    async def _create(self, client: httpx.AsyncClient, fed: Federated, name: str) -> httpx.Response:
        return await client.post(
            "/web/sso-accounts/create",
            json={
                "accountName": name,
                "userFirstName": "Cre",
                "userLastName": "Ator",
                "userEmail": fed.email,
                "userIdentityId": fed.username,
            },
            headers=fed.headers,
        )

    async def test_anonymous_is_401(self, client: httpx.AsyncClient) -> None:
        response = await client.post(
            "/web/sso-accounts/create",
            json={
                "accountName": "x",
                "userFirstName": "a",
                "userLastName": "b",
                "userEmail": "c@d.com",
                "userIdentityId": "google_1",
            },
        )
        assert response.status_code == 401

    async def test_creates_the_account_with_a_trimmed_name(
        self, client: httpx.AsyncClient, make_federated: MakeFederated
    ) -> None:
        fed = await make_federated(provider="Github")
        response = await self._create(client, fed, "  Octo Labs  ")
        assert response.status_code == 204, response.text
        session = (await client.get("/web/session", headers=fed.headers)).json()["session"]
        assert session["account"]["name"] == "Octo Labs"
        account = (await client.get("/web/account", headers=fed.headers)).json()["account"]
        assert account["users"][0]["authType"] == "GitHub"
        assert (await self._create(client, fed, "Twice")).status_code == 409

    async def test_empty_name(
        self, client: httpx.AsyncClient, make_federated: MakeFederated
    ) -> None:
        fed = await make_federated()
        response = await self._create(client, fed, "   ")
        assert response.status_code == 422
        assert response.json()["message"] == "Account name must not be empty"

    async def test_cannot_create_for_someone_else(
        self, client: httpx.AsyncClient, make_federated: MakeFederated
    ) -> None:
        fed = await make_federated()
        other = await make_federated()
        response = await client.post(
            "/web/sso-accounts/create",
            json={
                "accountName": "Hijack",
                "userFirstName": "a",
                "userLastName": "b",
                "userEmail": other.email,
                "userIdentityId": other.username,
            },
            headers=fed.headers,
        )
        assert response.status_code == 400
        assert (await client.get("/web/session", headers=other.headers)).status_code == 403
