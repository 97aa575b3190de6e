"""The dev stack's hosted-UI stand-in and mailbox; and that production never mounts them."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from urllib.parse import parse_qs, urlparse

import httpx
import jwt
import pytest

from api.adapters.cognito import CodeMismatchError, CognitoClient, NoVerifiedAddressError
from api.app.web import create_app
from api.kernel.config import Settings
from devstack import bootstrap
from devstack.app import create_dev_app
from devstack.stack import Stack
from tests.api.conftest import unique_email

REDIRECT = "http://testserver/oauth/sso"
VERIFIER = "v" * 43  # the shortest verifier RFC 7636 allows
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=")


async def _authorize(client: httpx.AsyncClient, stack: Stack, email: str) -> str:
    response = await client.post(
        "/oauth2/authorize",
        data={
            "identity_provider": "Google",
            "redirect_uri": REDIRECT,
            "client_id": stack.settings.cognito.client_id,
            "state": "s-123",
            "code_challenge": CHALLENGE.decode(),
            "email": email,
            "given_name": "Gia",
            "family_name": "Google",
        },
    )
    assert response.status_code == 302
    location = urlparse(response.headers["location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == REDIRECT
    assert parse_qs(location.query)["state"] == ["s-123"]
    return parse_qs(location.query)["code"][0]


async def _exchange(
    client: httpx.AsyncClient, stack: Stack, code: str, verifier: str = VERIFIER
) -> httpx.Response:
    return await client.post(
        "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "client_id": stack.settings.cognito.client_id,
            "redirect_uri": REDIRECT,
            "code_verifier": verifier,
        },
    )


class TestHostedUiStandIn:
    async def test_page_has_the_identity_fields(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        response = await client.get(
            "/oauth2/authorize",
            params={
                "response_type": "code",
                "client_id": stack.settings.cognito.client_id,
                "redirect_uri": REDIRECT,
                "identity_provider": "Github",
                "state": "s-1",
                "code_challenge": CHALLENGE.decode(),
                "code_challenge_method": "S256",
            },
        )
        assert response.status_code == 200
        for text in ("Sign in with GitHub", ">Email<", ">First name<", ">Last name<", "Continue"):
            assert text in response.text

    async def test_code_exchanges_once_for_tokens_the_api_accepts(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        email = unique_email("gia")
        code = await _authorize(client, stack, email)
        tokens = await _exchange(client, stack, code)
        assert tokens.status_code == 200
        body = tokens.json()
        assert {"id_token", "access_token", "refresh_token"} <= body.keys()
        # Verified exactly like a production token: valid, but this identity has no account.
        session = await client.get(
            "/web/session", headers={"Authorization": f"Bearer {body['access_token']}"}
        )
        assert session.status_code == 403
        assert session.json()["code"] == "AccountRequired"
        again = await _exchange(client, stack, code)
        assert again.status_code == 400
        assert again.json() == {"error": "invalid_grant"}

    async def test_same_email_is_the_same_google_username(
        self, client: httpx.AsyncClient, stack: Stack, cognito: CognitoClient
    ) -> None:
        email = unique_email("same")
        first = (await _exchange(client, stack, await _authorize(client, stack, email))).json()
        second = (await _exchange(client, stack, await _authorize(client, stack, email))).json()
        claims = [
            jwt.decode(t["access_token"], options={"verify_signature": False})
            for t in (first, second)
        ]
        assert claims[0]["username"] == claims[1]["username"]
        assert claims[0]["username"].startswith("google_")

    @pytest.mark.parametrize("missing", ["state", "code_challenge", "code_challenge_method"])
    async def test_state_and_pkce_are_required(
        self, client: httpx.AsyncClient, stack: Stack, missing: str
    ) -> None:
        params = {
            "response_type": "code",
            "client_id": stack.settings.cognito.client_id,
            "redirect_uri": REDIRECT,
            "state": "s-1",
            "code_challenge": CHALLENGE.decode(),
            "code_challenge_method": "S256",
        }
        del params[missing]
        response = await client.get("/oauth2/authorize", params=params)
        assert response.status_code == 400

    async def test_a_wrong_verifier_is_invalid_grant(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        code = await _authorize(client, stack, unique_email("gia"))
        response = await _exchange(client, stack, code, verifier="w" * 43)
        assert response.status_code == 400
        assert response.json() == {"error": "invalid_grant"}

    async def test_federated_users_carry_the_identities_attribute(
        self, client: httpx.AsyncClient, stack: Stack, cognito: CognitoClient
    ) -> None:
        body = (
            await _exchange(client, stack, await _authorize(client, stack, unique_email()))
        ).json()
        claims = jwt.decode(body["access_token"], options={"verify_signature": False})
        user = await cognito.admin_get_user(claims["username"])
        identities = json.loads(user.attributes["identities"])
        assert [(i["providerName"], i["providerType"]) for i in identities] == [
            ("Google", "Google")
        ]
        assert user.attributes["email_verified"] == "true"

    async def test_unknown_client_is_refused(self, client: httpx.AsyncClient) -> None:
        response = await client.get(
            "/oauth2/authorize",
            params={"response_type": "code", "client_id": "nope", "redirect_uri": REDIRECT},
        )
        assert response.status_code == 400


class TestMailbox:
    async def test_records_temporary_passwords_newest_first(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = unique_email("invitee")
        await cognito.admin_create_user(
            email, {"email": email}, temporary_password="Temp-pass-9876!"
        )
        messages = (await client.get("/dev/mailbox", params={"to": email})).json()
        assert len(messages) == 1
        assert messages[0]["to"] == email
        assert messages[0]["temporaryPassword"] == "Temp-pass-9876!"
        assert "Temp-pass-9876!" in messages[0]["body"]
        newest = (await client.get("/dev/mailbox")).json()[0]
        assert newest["to"] == email

    async def test_records_forgot_password_codes(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = unique_email("forgetful")
        attributes = {"email": email, "email_verified": "true"}
        await cognito.admin_create_user(email, attributes, suppress_message=True)
        await cognito.admin_set_user_password(email, "Known-pass-123!", permanent=True)
        await cognito.call(
            "ForgotPassword", {"ClientId": cognito.client_id, "Username": email}, signed=False
        )
        messages = (await client.get("/dev/mailbox", params={"to": email})).json()
        assert len(messages) == 1
        assert messages[0]["code"]
        assert messages[0]["temporaryPassword"] is None

    async def test_no_reset_code_to_an_unverified_address(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        # As Cognito: reset codes go to a verified address only.
        email = unique_email("unproven")
        await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await cognito.admin_set_user_password(email, "Known-pass-123!", permanent=True)
        with pytest.raises(NoVerifiedAddressError):
            await cognito.forgot_password(email)
        assert (await client.get("/dev/mailbox", params={"to": email})).json() == []

    async def test_records_email_verification_codes(
        self, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        email = unique_email("proving")
        await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await cognito.admin_set_user_password(email, "Known-pass-123!", permanent=True)
        signed_in = await cognito.password_auth(email, "Known-pass-123!")
        assert signed_in.tokens is not None
        delivery = await cognito.get_email_verification_code(signed_in.tokens.access_token)
        assert delivery is not None and delivery.attribute_name == "email"
        messages = (await client.get("/dev/mailbox", params={"to": email})).json()
        assert len(messages) == 1
        with pytest.raises(CodeMismatchError):
            await cognito.verify_email(signed_in.tokens.access_token, "not-the-code")
        await cognito.verify_email(signed_in.tokens.access_token, messages[0]["code"])
        assert (await cognito.admin_get_user(email)).attributes["email_verified"] == "true"


class TestProductionHasNoStandIns:
    def test_production_refuses_stand_ins(self) -> None:
        settings = Settings(environment="production", dev_stand_ins=True, database_url="x")
        with pytest.raises(ValueError, match="DEV_STAND_INS"):
            settings.check()

    def test_stand_ins_default_to_off(self) -> None:
        assert Settings().dev_stand_ins is False

    async def test_production_app_has_no_mailbox_dns_records_or_hosted_ui(
        self, stack: Stack
    ) -> None:
        app = create_app(stack.with_settings(environment="production", dev_stand_ins=False))
        paths = {getattr(route, "path", "") for route in app.routes}
        assert "/dev/mailbox" not in paths
        assert "/dev/dns/{name}" not in paths
        assert "/dev/domains/recheck" not in paths
        assert "/oauth2/authorize" not in paths
        assert "/oauth2/token" not in paths
        assert "/saml2/idpresponse" not in paths
        assert not {p for p in paths if p.startswith("/dev/saml-idp")}


def test_the_dev_app_needs_stand_ins_on(stack: Stack) -> None:
    with pytest.raises(ValueError, match="DEV_STAND_INS"):
        create_dev_app(stack.with_settings(dev_stand_ins=False))


async def test_only_the_dev_app_mounts_the_stand_ins(stack: Stack) -> None:
    # Even with stand-ins allowed by the settings, only create_dev_app mounts them.
    for factory, status in ((create_app, 404), (create_dev_app, 400)):
        transport = httpx.ASGITransport(app=factory(stack.settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            response = await c.get(
                "/oauth2/authorize", params={"client_id": "x", "redirect_uri": REDIRECT}
            )
            idp = await c.get("/dev/saml-idp/sso", params={"SAMLRequest": "not-a-request"})
            acs = await c.post("/saml2/idpresponse", data={"SAMLResponse": "x"})
        assert response.status_code == status, factory.__name__
        assert idp.status_code == status, factory.__name__
        assert acs.status_code == status, factory.__name__


def test_the_stripe_stand_in_honours_idempotency_keys(stack: Stack) -> None:
    # As Stripe does: the same POST with the same key is answered once and replayed.
    def create(key: str) -> str:
        response = httpx.post(
            f"{stack.stand_ins.localstripe_url}/v1/customers",
            data={"email": "same@example-corp.com"},
            headers={"Idempotency-Key": key},
            auth=(bootstrap.STRIPE_SECRET_KEY, ""),
        )
        response.raise_for_status()
        return str(response.json()["id"])

    first = create("same-key")
    assert create("same-key") == first
    assert create("another-key") != first


class TestDnsStandIn:
    async def test_records_are_set_read_and_removed(self, client: httpx.AsyncClient) -> None:
        name = f"standin-{secrets.token_hex(4)}.dev"
        assert (await client.get(f"/dev/dns/{name}")).json() == {
            "name": name,
            "rcode": "NXDOMAIN",
            "txt": [],
        }
        put = await client.put(f"/dev/dns/{name}.", json={"txt": ["a=1", "b=2 with spaces"]})
        assert put.json() == {"name": name, "rcode": "NOERROR", "txt": ["a=1", "b=2 with spaces"]}
        replaced = await client.put(f"/dev/dns/{name.upper()}", json={"txt": []})
        assert replaced.json() == {"name": name, "rcode": "NOERROR", "txt": []}  # NODATA
        gone = await client.delete(f"/dev/dns/{name}")
        assert gone.json() == {"name": name, "rcode": "NXDOMAIN", "txt": []}
