"""Passkey challenges expire after 3 minutes (devstack/moto_webauthn.py), tested on the
Cognito stand-in run in this process, its clock (``devstack.moto_server.now``) moved on
instead of waited for: the stand-in the API tests reach is a child process whose clock they
cannot move."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from moto.cognitoidp import models
from moto.core.exceptions import JsonRESTError

from devstack import moto_server, moto_webauthn
from tests.api.identity.passkeys.authenticator import SoftAuthenticator

ACCOUNT, REGION = "123456789012", "us-east-1"
RP_ID = "localhost"
ORIGIN = "http://localhost:8000"
USERNAME = "ada@example.dev"
PASSWORD = "Correct-horse-42!"
TTL_S = moto_server.CHALLENGE_SESSION_TTL_S


@dataclass
class InProcess:
    """A pool with one signed-in user on the in-process stand-in, and its clock."""

    backend: Any
    pool_id: str
    client_id: str
    access_token: str
    clock: list[float]

    def later(self, seconds: float) -> None:
        self.clock[0] += seconds

    def register(self, key: SoftAuthenticator) -> None:
        options = self.backend.start_web_authn_registration(self.access_token)
        self.backend.complete_web_authn_registration(
            self.access_token, key.register(options, origin=ORIGIN)
        )

    def passkey_challenge(self) -> dict[str, Any]:
        challenge: dict[str, Any] = self.backend.admin_initiate_auth(
            self.pool_id,
            self.client_id,
            "USER_AUTH",
            {"USERNAME": USERNAME, "PREFERRED_CHALLENGE": "WEB_AUTHN"},
        )
        assert challenge["ChallengeName"] == "WEB_AUTHN"
        return challenge

    def answer(self, challenge: dict[str, Any], key: SoftAuthenticator) -> dict[str, Any]:
        options = challenge["ChallengeParameters"]["CREDENTIAL_REQUEST_OPTIONS"]
        result: dict[str, Any] = self.backend.admin_respond_to_auth_challenge(
            challenge["Session"],
            self.client_id,
            "WEB_AUTHN",
            {"USERNAME": USERNAME, "CREDENTIAL": json.dumps(key.sign_in(options, origin=ORIGIN))},
        )
        return result


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcess]:
    moto_server.install()
    clock = [1_800_000_000.0]
    monkeypatch.setattr(moto_server, "now", lambda: clock[0])
    backend = models.cognitoidp_backends[ACCOUNT][REGION]
    factors = {"AllowedFirstAuthFactors": ["PASSWORD", "WEB_AUTHN"]}
    pool = backend.create_user_pool(
        f"passkeys-{secrets.token_hex(4)}", {"Policies": {"SignInPolicy": factors}}
    )
    moto_webauthn.set_web_authn_configuration(
        pool.id, {"RelyingPartyId": RP_ID, "UserVerification": "required"}
    )
    flows = ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_USER_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]
    client = backend.create_user_pool_client(
        pool.id, False, {"ClientName": "console", "ExplicitAuthFlows": flows}
    )
    backend.admin_create_user(
        pool.id, USERNAME, "SUPPRESS", "Temporary-pass-1!", [{"Name": "email", "Value": USERNAME}]
    )
    backend.admin_set_user_password(pool.id, USERNAME, PASSWORD, True)
    signed_in = backend.admin_initiate_auth(
        pool.id,
        client.id,
        "ADMIN_USER_PASSWORD_AUTH",
        {"USERNAME": USERNAME, "PASSWORD": PASSWORD},
    )
    yield InProcess(
        backend, pool.id, client.id, signed_in["AuthenticationResult"]["AccessToken"], clock
    )
    backend.delete_user_pool(pool.id)


def test_a_registration_challenge_lasts_three_minutes(stand_in: InProcess) -> None:
    key = SoftAuthenticator()
    options = stand_in.backend.start_web_authn_registration(stand_in.access_token)
    stand_in.later(TTL_S + 1)
    with pytest.raises(JsonRESTError) as expired:
        stand_in.backend.complete_web_authn_registration(
            stand_in.access_token, key.register(options, origin=ORIGIN)
        )
    assert expired.value.error_type == "WebAuthnChallengeNotFoundException"

    options = stand_in.backend.start_web_authn_registration(stand_in.access_token)
    stand_in.later(TTL_S - 1)
    stand_in.backend.complete_web_authn_registration(
        stand_in.access_token, key.register(options, origin=ORIGIN)
    )
    listed = stand_in.backend.list_web_authn_credentials(stand_in.access_token, None, None)
    assert [c["CredentialId"] for c in listed["Credentials"]] == [key.id]


def test_a_sign_in_challenge_lasts_three_minutes(stand_in: InProcess) -> None:
    key = SoftAuthenticator()
    stand_in.register(key)
    challenge = stand_in.passkey_challenge()
    stand_in.later(TTL_S + 1)
    with pytest.raises(JsonRESTError) as expired:
        stand_in.answer(challenge, key)
    assert expired.value.error_type == "NotAuthorizedException"
    assert expired.value.message == "Invalid session for the user, session is expired."
    # An expired session is gone: it takes no answer later either.
    with pytest.raises(JsonRESTError) as gone:
        stand_in.answer(challenge, key)
    assert gone.value.message == "Invalid session for the user."

    challenge = stand_in.passkey_challenge()
    stand_in.later(TTL_S - 1)
    assert stand_in.answer(challenge, key)["AuthenticationResult"]["AccessToken"]
