"""Passkeys on the Cognito stand-in, through the console's adapter (devstack/moto_webauthn.py;
api/adapters/cognito.py): a software authenticator registers a passkey and signs in with it,
and every forgery, replay or mismatch is refused with Cognito's error, as the real service
refuses it. Every request the adapter sends here is checked against botocore's model
(tests/api/cognito_model.py)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    NotAuthorizedError,
    PasskeyRefusedError,
    PasskeysNotEnabledError,
    ResourceNotFoundError,
)
from devstack.bootstrap import PASSKEY_USER_VERIFICATION, passkey_relying_party_id
from tests.api.conftest import MakeUser, SignedIn
from tests.api.identity.passkeys.authenticator import SoftAuthenticator

# The tests' console is http://testserver: its relying party is "testserver", and a browser
# would hold WebAuthn to the secure origin of that name.
RP_ID = passkey_relying_party_id("http://testserver")
ORIGIN = f"https://{RP_ID}"


@pytest.fixture
async def user_auth(cognito: CognitoClient) -> AsyncIterator[None]:
    """``ALLOW_USER_AUTH`` on the console's app client for one test: passkey sign-in needs it,
    and the dev stack leaves it off (devstack/bootstrap.py ``APP_CLIENT_AUTH_FLOWS``)."""
    client = await cognito.describe_app_client()
    flows = [*client["ExplicitAuthFlows"], "ALLOW_USER_AUTH"]
    await cognito.update_app_client({**client, "ExplicitAuthFlows": flows})
    try:
        yield
    finally:
        await cognito.update_app_client(client)


async def register(
    cognito: CognitoClient, user: SignedIn, authenticator: SoftAuthenticator | None = None
) -> SoftAuthenticator:
    """Register a new passkey (``authenticator``, or a new one) for ``user``."""
    authenticator = authenticator or SoftAuthenticator()
    options = await cognito.start_web_authn_registration(user.access_token)
    await cognito.complete_web_authn_registration(
        user.access_token, authenticator.register(options, origin=ORIGIN)
    )
    return authenticator


def username(user: SignedIn) -> str:
    return user.user.identity_id


async def test_the_pool_has_a_passkey_relying_party(cognito: CognitoClient) -> None:
    config = await cognito.call(
        "GetUserPoolMfaConfig", {"UserPoolId": cognito.user_pool_id}, signed=True
    )
    assert config["WebAuthnConfiguration"] == {
        "RelyingPartyId": RP_ID,
        "UserVerification": PASSKEY_USER_VERIFICATION,
    }
    pool = await cognito.call("DescribeUserPool", {"UserPoolId": cognito.user_pool_id}, signed=True)
    factors = pool["UserPool"]["Policies"]["SignInPolicy"]["AllowedFirstAuthFactors"]
    assert "WEB_AUTHN" in factors


async def test_a_passkey_registers_lists_and_signs_in(
    client: httpx.AsyncClient, cognito: CognitoClient, make_user: MakeUser, user_auth: None
) -> None:
    user = await make_user()
    before = time.time()
    options = await cognito.start_web_authn_registration(user.access_token)
    assert options["rp"] == {"id": RP_ID, "name": RP_ID}
    assert options["user"]["name"] == username(user)
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "required"
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-7, -257]
    assert options["excludeCredentials"] == []
    key = SoftAuthenticator(attachment="cross-platform", transports=("usb",))
    await cognito.complete_web_authn_registration(
        user.access_token, key.register(options, origin=ORIGIN)
    )

    [listed] = await cognito.list_web_authn_credentials(user.access_token)
    assert (listed.id, listed.name, listed.relying_party_id) == (key.id, "Roaming passkey", RP_ID)
    assert (listed.attachment, listed.transports) == ("cross-platform", ("usb",))
    assert before - 1 <= listed.created_at.timestamp() <= time.time() + 1
    again = await cognito.start_web_authn_registration(user.access_token)
    assert [c["id"] for c in again["excludeCredentials"]] == [key.id]

    challenge = await cognito.passkey_auth_start(username(user))
    assert challenge.options["rpId"] == RP_ID
    assert challenge.options["userVerification"] == "required"
    assert [c["id"] for c in challenge.options["allowCredentials"]] == [key.id]
    result = await cognito.passkey_auth_answer(
        username(user), challenge.session, key.sign_in(challenge.options, origin=ORIGIN)
    )
    assert result.tokens is not None and result.tokens.refresh_token
    # Tokens like any sign-in's: the console takes the access token, and the refresh token
    # refreshes.
    session = await client.get(
        "/web/session", headers={"Authorization": f"Bearer {result.tokens.access_token}"}
    )
    assert session.status_code == 200, session.text
    assert session.json()["session"]["user"]["id"] == str(user.user.id)
    refreshed = await cognito.refresh(result.tokens.refresh_token)
    assert refreshed.access_token


class TestRegistrationRefusals:
    async def test_without_a_start_or_twice_the_challenge_is_not_found(
        self, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        key = SoftAuthenticator()
        options = await cognito.start_web_authn_registration(user.access_token)
        response = key.register(options, origin=ORIGIN)
        await cognito.complete_web_authn_registration(user.access_token, response)
        with pytest.raises(PasskeyRefusedError) as twice:
            await cognito.complete_web_authn_registration(user.access_token, response)
        assert twice.value.code == "WebAuthnChallengeNotFoundException"
        # A newer start replaces the challenge: an answer to the older one is refused.
        older = await cognito.start_web_authn_registration(user.access_token)
        await cognito.start_web_authn_registration(user.access_token)
        with pytest.raises(PasskeyRefusedError) as stale:
            await cognito.complete_web_authn_registration(
                user.access_token, SoftAuthenticator().register(older, origin=ORIGIN)
            )
        assert stale.value.code == "WebAuthnChallengeNotFoundException"
        assert [p.id for p in await cognito.list_web_authn_credentials(user.access_token)] == [
            key.id
        ]

    @pytest.mark.parametrize(
        ("made", "code"),
        [
            ({"origin": "https://evil.example"}, "WebAuthnOriginNotAllowedException"),
            # A look-alike suffix and an insecure origin of the right name align with nothing.
            ({"origin": f"https://not{RP_ID}"}, "WebAuthnOriginNotAllowedException"),
            ({"origin": f"http://{RP_ID}"}, "WebAuthnOriginNotAllowedException"),
            ({"origin": ORIGIN, "rp_id": "evil.example"}, "WebAuthnRelyingPartyMismatchException"),
        ],
    )
    async def test_another_origin_or_relying_party_is_refused(
        self, cognito: CognitoClient, make_user: MakeUser, made: dict[str, str], code: str
    ) -> None:
        user = await make_user()
        options = await cognito.start_web_authn_registration(user.access_token)
        with pytest.raises(PasskeyRefusedError) as refused:
            await cognito.complete_web_authn_registration(
                user.access_token, SoftAuthenticator().register(options, **made)
            )
        assert refused.value.code == code
        assert await cognito.list_web_authn_credentials(user.access_token) == []

    async def test_a_subdomain_origin_is_allowed(
        self, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        options = await cognito.start_web_authn_registration(user.access_token)
        key = SoftAuthenticator()
        await cognito.complete_web_authn_registration(
            user.access_token, key.register(options, origin=f"https://console.{RP_ID}:8443")
        )
        assert [p.id for p in await cognito.list_web_authn_credentials(user.access_token)] == [
            key.id
        ]

    async def test_a_passkey_that_does_not_verify_the_user_is_not_supported(
        self, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        options = await cognito.start_web_authn_registration(user.access_token)
        with pytest.raises(PasskeyRefusedError) as refused:
            await cognito.complete_web_authn_registration(
                user.access_token,
                SoftAuthenticator(user_verified=False).register(options, origin=ORIGIN),
            )
        assert refused.value.code == "WebAuthnCredentialNotSupportedException"

    async def test_another_users_token_cannot_complete_it(
        self, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        user, other = await make_user(), await make_user()
        options = await cognito.start_web_authn_registration(user.access_token)
        with pytest.raises(PasskeyRefusedError) as refused:
            await cognito.complete_web_authn_registration(
                other.access_token, SoftAuthenticator().register(options, origin=ORIGIN)
            )
        assert refused.value.code == "WebAuthnChallengeNotFoundException"


class TestSignInRefusals:
    async def test_a_forged_signature_is_refused(
        self, cognito: CognitoClient, make_user: MakeUser, user_auth: None
    ) -> None:
        user = await make_user()
        key = await register(cognito, user)
        challenge = await cognito.passkey_auth_start(username(user))
        forged = key.sign_in(
            challenge.options, origin=ORIGIN, key=ec.generate_private_key(ec.SECP256R1())
        )
        with pytest.raises(NotAuthorizedError) as refused:
            await cognito.passkey_auth_answer(username(user), challenge.session, forged)
        assert "signature" in refused.value.message
        # The passkey itself still signs in.
        challenge = await cognito.passkey_auth_start(username(user))
        result = await cognito.passkey_auth_answer(
            username(user), challenge.session, key.sign_in(challenge.options, origin=ORIGIN)
        )
        assert result.tokens is not None

    async def test_a_replayed_or_cloned_assertion_is_refused(
        self, cognito: CognitoClient, make_user: MakeUser, user_auth: None
    ) -> None:
        user = await make_user()
        key = await register(cognito, user)
        challenge = await cognito.passkey_auth_start(username(user))
        assertion = key.sign_in(challenge.options, origin=ORIGIN)
        assert (
            await cognito.passkey_auth_answer(username(user), challenge.session, assertion)
        ).tokens
        # The same answer again: its session served its one answer.
        with pytest.raises(NotAuthorizedError) as replayed:
            await cognito.passkey_auth_answer(username(user), challenge.session, assertion)
        assert replayed.value.message == "Invalid session for the user."
        # A new challenge signed with a sign count that did not go up (a cloned
        # authenticator, or a replay of the counter): refused, and so is a lower one.
        for count in (key.sign_count, key.sign_count - 1):
            challenge = await cognito.passkey_auth_start(username(user))
            cloned = key.sign_in(challenge.options, origin=ORIGIN, sign_count=count)
            with pytest.raises(NotAuthorizedError) as refused:
                await cognito.passkey_auth_answer(username(user), challenge.session, cloned)
            assert "sign count" in refused.value.message

    @pytest.mark.parametrize(
        ("made", "reason"),
        [
            ({"origin": "https://evil.example"}, "does not align"),
            ({"origin": f"http://{RP_ID}"}, "does not align"),
            ({"origin": ORIGIN, "rp_id": "evil.example"}, "RP ID"),
        ],
    )
    async def test_another_origin_or_relying_party_is_refused(
        self,
        cognito: CognitoClient,
        make_user: MakeUser,
        user_auth: None,
        made: dict[str, str],
        reason: str,
    ) -> None:
        user = await make_user()
        key = await register(cognito, user)
        challenge = await cognito.passkey_auth_start(username(user))
        with pytest.raises(NotAuthorizedError) as refused:
            await cognito.passkey_auth_answer(
                username(user), challenge.session, key.sign_in(challenge.options, **made)
            )
        assert reason in refused.value.message

    async def test_an_answer_to_another_sessions_challenge_is_refused(
        self, cognito: CognitoClient, make_user: MakeUser, user_auth: None
    ) -> None:
        user = await make_user()
        key = await register(cognito, user)
        first = await cognito.passkey_auth_start(username(user))
        second = await cognito.passkey_auth_start(username(user))
        with pytest.raises(NotAuthorizedError) as refused:
            await cognito.passkey_auth_answer(
                username(user), second.session, key.sign_in(first.options, origin=ORIGIN)
            )
        assert "challenge" in refused.value.message
        # Nor does another user's session take this user's passkey.
        other = await make_user()
        await register(cognito, other)
        theirs = await cognito.passkey_auth_start(username(other))
        with pytest.raises(NotAuthorizedError) as refused:
            await cognito.passkey_auth_answer(
                username(user), theirs.session, key.sign_in(theirs.options, origin=ORIGIN)
            )
        assert refused.value.message == "The USERNAME is not the session's user."
        theirs = await cognito.passkey_auth_start(username(other))
        with pytest.raises(NotAuthorizedError) as refused:
            await cognito.passkey_auth_answer(
                username(other), theirs.session, key.sign_in(theirs.options, origin=ORIGIN)
            )
        assert refused.value.message == "The passkey is not registered for this user."

    async def test_a_deleted_passkey_no_longer_signs_in(
        self, cognito: CognitoClient, make_user: MakeUser, user_auth: None
    ) -> None:
        user, other = await make_user(), await make_user()
        key = await register(cognito, user)
        challenge = await cognito.passkey_auth_start(username(user))
        # Only its owner deletes it.
        with pytest.raises(ResourceNotFoundError):
            await cognito.delete_web_authn_credential(other.access_token, key.id)
        await cognito.delete_web_authn_credential(user.access_token, key.id)
        with pytest.raises(NotAuthorizedError) as refused:
            await cognito.passkey_auth_answer(
                username(user), challenge.session, key.sign_in(challenge.options, origin=ORIGIN)
            )
        assert refused.value.message == "The passkey is not registered for this user."
        assert await cognito.list_web_authn_credentials(user.access_token) == []
        with pytest.raises(ResourceNotFoundError):
            await cognito.delete_web_authn_credential(user.access_token, key.id)
        # With no passkey left Cognito offers none: the password only (SELECT_CHALLENGE).
        with pytest.raises(PasskeysNotEnabledError) as none:
            await cognito.passkey_auth_start(username(user))
        assert none.value.code == "NoPasskeyChallenge"


class TestUserAuthFlow:
    async def test_the_consoles_app_client_does_not_allow_it(
        self, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        # The console signs in with passkeys at its passkey client (api/adapters/cognito.py
        # passkey_auth_start); its public client refuses USER_AUTH.
        user = await make_user()
        await register(cognito, user)
        with pytest.raises(CognitoError) as refused:
            await cognito.call(
                "AdminInitiateAuth",
                {
                    "UserPoolId": cognito.user_pool_id,
                    "ClientId": cognito.client_id,
                    "AuthFlow": "USER_AUTH",
                    "AuthParameters": {
                        "USERNAME": username(user),
                        "PREFERRED_CHALLENGE": "WEB_AUTHN",
                    },
                },
                signed=True,
            )
        assert refused.value.code == "InvalidParameterException"
        assert refused.value.message == "USER_AUTH flow not enabled for this client"

    async def test_it_is_a_password_sign_in_without_sigv4_too(
        self, cognito: CognitoClient, make_user: MakeUser, user_auth: None
    ) -> None:
        # Why the console's app client does not allow USER_AUTH (devstack/bootstrap.py): with
        # PASSWORD a first factor of the pool, the public client id and a password sign in,
        # unsigned, past the console's own checks and limits.
        user = await make_user()
        body = await cognito.call(
            "InitiateAuth",
            {
                "AuthFlow": "USER_AUTH",
                "ClientId": cognito.client_id,
                "AuthParameters": {
                    "USERNAME": username(user),
                    "PREFERRED_CHALLENGE": "PASSWORD",
                    "PASSWORD": user.password,
                },
            },
            signed=False,
        )
        assert body["AuthenticationResult"]["AccessToken"]

    async def test_without_a_preference_the_user_chooses(
        self, cognito: CognitoClient, make_user: MakeUser, user_auth: None
    ) -> None:
        user = await make_user()
        key = await register(cognito, user)
        body = await cognito.call(
            "AdminInitiateAuth",
            {
                "UserPoolId": cognito.user_pool_id,
                "ClientId": cognito.client_id,
                "AuthFlow": "USER_AUTH",
                "AuthParameters": {"USERNAME": username(user)},
            },
            signed=True,
        )
        assert body["ChallengeName"] == "SELECT_CHALLENGE"
        assert body["AvailableChallenges"] == ["PASSWORD", "WEB_AUTHN"]
        chosen = await cognito.call(
            "AdminRespondToAuthChallenge",
            {
                "UserPoolId": cognito.user_pool_id,
                "ClientId": cognito.client_id,
                "ChallengeName": "SELECT_CHALLENGE",
                "Session": body["Session"],
                "ChallengeResponses": {"USERNAME": username(user), "ANSWER": "WEB_AUTHN"},
            },
            signed=True,
        )
        assert chosen["ChallengeName"] == "WEB_AUTHN"
        options = chosen["ChallengeParameters"]["CREDENTIAL_REQUEST_OPTIONS"]
        answered = await cognito.call(
            "AdminRespondToAuthChallenge",
            {
                "UserPoolId": cognito.user_pool_id,
                "ClientId": cognito.client_id,
                "ChallengeName": "WEB_AUTHN",
                "Session": chosen["Session"],
                "ChallengeResponses": {
                    "USERNAME": username(user),
                    "CREDENTIAL": json.dumps(key.sign_in(options, origin=ORIGIN)),
                },
            },
            signed=True,
        )
        assert answered["AuthenticationResult"]["AccessToken"]


async def test_passkeys_list_a_page_at_a_time(cognito: CognitoClient, make_user: MakeUser) -> None:
    user = await make_user()
    keys = [await register(cognito, user) for _ in range(3)]
    first = await cognito.call(
        "ListWebAuthnCredentials", {"AccessToken": user.access_token, "MaxResults": 2}, signed=False
    )
    assert [c["CredentialId"] for c in first["Credentials"]] == [k.id for k in keys[:2]]
    rest = await cognito.call(
        "ListWebAuthnCredentials",
        {"AccessToken": user.access_token, "MaxResults": 2, "NextToken": first["NextToken"]},
        signed=False,
    )
    assert [c["CredentialId"] for c in rest["Credentials"]] == [keys[2].id]
    assert "NextToken" not in rest
    assert [p.id for p in await cognito.list_web_authn_credentials(user.access_token)] == [
        k.id for k in keys
    ]
