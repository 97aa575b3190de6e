"""Run moto's server for Cognito with the parts of Cognito the console relies on that moto
5.2.5 lacks, so the stand-in refuses what the real service refuses.

``python -m devstack.moto_server -H 127.0.0.1 -p 8421`` (the arguments of
``python -m moto.server``). What is added (Amazon Cognito API Reference):

- **App client auth flows.** ``InitiateAuth`` and ``AdminInitiateAuth`` honour the client's
  ``ExplicitAuthFlows``: a flow the client does not allow is refused with
  ``InvalidParameterException`` ('<flow> flow not enabled for this client'), as Cognito does.
  moto accepts every flow on every client, which hid the public client's password side door.
- **Client secrets of Cognito's form** (letters and digits; moto makes a UUID, which
  Cognito's model refuses as RevokeToken's ``ClientSecret``).
- **A refresh token is its app client's**: refreshing it at another client is
  ``NotAuthorizedException`` ('Invalid Refresh Token'), as Cognito does; moto takes any.
- **RevokeToken** (``Token``, ``ClientId``, and ``ClientSecret`` for a client with a secret,
  else ``NotAuthorizedException``): revokes that refresh token only; refreshing with
  it then fails with ``NotAuthorizedException`` ('Refresh Token has been revoked'). Cognito
  also stops the access tokens minted from it from working against Cognito's own APIs; the
  console verifies access tokens locally, so it ends them itself (``tokens_valid_after``).
- **Refresh after the user is deleted.** Cognito refuses the refresh token of a deleted user
  with ``NotAuthorizedException``; moto fails with an internal error.
- **GetUserAttributeVerificationCode** and **VerifyUserAttribute** (``email`` only, with the
  signed-in user's access token): a six-digit code, valid 24 hours as Cognito's, each new one
  replacing the last; a wrong code is ``CodeMismatchException``, a stale one
  ``ExpiredCodeException``, and a verified code sets ``email_verified`` true. The code travels
  back in the ``x-moto-attribute-verification-code`` header (and the address in
  ``x-moto-attribute-verification-to``), as moto hands out forgot-password codes, so the dev
  mailbox can show it.
- **ForgotPassword refuses an unverified address** with ``InvalidParameterException``
  ('Cannot reset password for the user as there is no registered/verified email or
  phone_number') when the pool recovers by verified email, as Cognito does; moto sends a code
  anyway.
- **Authenticator apps (software token MFA)** as Cognito runs them: moto gives every user the
  same fixed secret and checks no code unless an environment variable says so. Here
  ``AssociateSoftwareToken`` makes a random secret per user (160 bits, base32) and refuses
  when the pool does not allow software token MFA (``SoftwareTokenMFANotFoundException``);
  ``VerifySoftwareToken`` checks a code of that new secret
  (``EnableSoftwareTokenMFAException`` 'Code mismatch' otherwise) and only then replaces the
  user's authenticator; the ``SOFTWARE_TOKEN_MFA`` challenge checks the code against the
  user's current secret (``CodeMismatchException``). Codes are RFC 6238 (SHA-1, 6 digits,
  30 s); Cognito does not document how much clock drift it forgives: the stand-in takes the
  step before and after the current one.
- **Challenge sessions expire** after 3 minutes (Cognito's default ``AuthSessionValidity``):
  answering later is ``NotAuthorizedException`` ('Invalid session for the user, session is
  expired.'); moto keeps them for ever.
- **Passkeys (WebAuthn) and choice-based sign-in** (``USER_AUTH``, allowed by a client's
  ``ALLOW_USER_AUTH``): StartWebAuthnRegistration, CompleteWebAuthnRegistration,
  ListWebAuthnCredentials, DeleteWebAuthnCredential, the pool's ``WebAuthnConfiguration`` and
  the ``WEB_AUTHN`` and ``SELECT_CHALLENGE`` challenges, all of which moto lacks: in
  devstack/moto_webauthn.py (installed by :func:`install`), whose docstring lists them.
- **Refreshed tokens keep ``auth_time``**, the time the user signed in, as Cognito's do
  (OpenID Connect Core 2); moto stamps the time of the refresh.
- **GetSigningCertificate** (``UserPoolId``): the certificate the pool signs SAML sign-in
  requests with (base64 DER; RSA 2048, self-signed, valid 10 years as Cognito's), made once
  per pool and run; an unknown pool is ``ResourceNotFoundException``. moto lacks the
  operation. Cognito keeps the private key to itself; the stand-in hands it to the hosted-UI
  stand-in, which signs the requests Cognito would (devstack/hosted_saml.py), in the
  ``x-moto-signing-key`` header (PEM, base64), as moto hands out forgot-password codes.
"""

from __future__ import annotations

import base64
import contextvars
import secrets
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.twofactor import InvalidToken
from moto.cognitoidp import models, responses
from moto.cognitoidp.exceptions import (
    CodeMismatchException,
    ExpiredCodeException,
    InvalidParameterException,
    NotAuthorizedError,
    UserNotConfirmedException,
)
from moto.cognitoidp.utils import cognito_totp, verify_totp
from moto.core.exceptions import JsonRESTError
from moto.core.responses import ActionResult, EmptyResult
from moto.server import main

from devstack.saml_idp import new_certificate

# The flow of an auth request -> the ExplicitAuthFlows entry that allows it.
_FLOW_SETTING = {
    "USER_PASSWORD_AUTH": "ALLOW_USER_PASSWORD_AUTH",
    "ADMIN_USER_PASSWORD_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "ADMIN_NO_SRP_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "USER_SRP_AUTH": "ALLOW_USER_SRP_AUTH",
    "CUSTOM_AUTH": "ALLOW_CUSTOM_AUTH",
    "REFRESH_TOKEN_AUTH": "ALLOW_REFRESH_TOKEN_AUTH",
    "REFRESH_TOKEN": "ALLOW_REFRESH_TOKEN_AUTH",
    # Choice-based sign-in (passkeys, and passwords too: devstack/moto_webauthn.py).
    "USER_AUTH": "ALLOW_USER_AUTH",
}
# Cognito's legacy names for the same settings.
_LEGACY = {
    "ALLOW_USER_PASSWORD_AUTH": "USER_PASSWORD_AUTH",
    "ALLOW_ADMIN_USER_PASSWORD_AUTH": "ADMIN_NO_SRP_AUTH",
    "ALLOW_CUSTOM_AUTH": "CUSTOM_AUTH_FLOW_ONLY",
}


def _client(backend: models.CognitoIdpBackend, client_id: str) -> Any:
    for pool in backend.user_pools.values():
        if client_id in pool.clients:
            return pool, pool.clients[client_id]
    return None, None


def _check_flow(backend: models.CognitoIdpBackend, client_id: str, auth_flow: str) -> None:
    """Refuse ``auth_flow`` unless the client's ExplicitAuthFlows allow it."""
    _, client = _client(backend, client_id)
    if client is None:
        return  # moto answers ResourceNotFoundException itself
    allowed = set(client.extended_config.get("ExplicitAuthFlows") or [])
    setting = _FLOW_SETTING.get(auth_flow)
    if setting is None or setting in allowed or _LEGACY.get(setting) in allowed:
        return
    raise InvalidParameterException(f"{auth_flow} flow not enabled for this client")


_initiate_auth = models.CognitoIdpBackend.initiate_auth
_admin_initiate_auth = models.CognitoIdpBackend.admin_initiate_auth


def initiate_auth(
    self: models.CognitoIdpBackend,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    _check_flow(self, client_id, auth_flow)
    if auth_flow in ("REFRESH_TOKEN_AUTH", "REFRESH_TOKEN"):
        pool, _ = _client(self, client_id)
        entry = pool.refresh_tokens.get(auth_parameters.get("REFRESH_TOKEN")) if pool else None
        if entry is not None and entry[1] not in pool.users:
            raise NotAuthorizedError("User does not exist.")
        # A refresh token refreshes at the app client that issued it only (moto takes any).
        if entry is not None and entry[0] != client_id:
            raise NotAuthorizedError("Invalid Refresh Token")
    return _initiate_auth(self, client_id, auth_flow, auth_parameters)


def admin_initiate_auth(
    self: models.CognitoIdpBackend,
    user_pool_id: str,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    _check_flow(self, client_id, auth_flow)
    return admin_auth_allowed(self, user_pool_id, client_id, auth_flow, auth_parameters)


def admin_auth_allowed(
    self: models.CognitoIdpBackend,
    user_pool_id: str,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    """AdminInitiateAuth once the client's flows allowed it (choice-based sign-in's password
    factor runs this as ``ADMIN_USER_PASSWORD_AUTH``: devstack/moto_webauthn.py)."""
    if auth_flow in ("ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"):
        # Cognito refuses an unconfirmed user here as InitiateAuth does; moto does not.
        user = self.admin_get_user(user_pool_id, auth_parameters.get("USERNAME", ""))
        if user.status == models.UserStatus.UNCONFIRMED:
            raise UserNotConfirmedException("User is not confirmed.")
    try:
        result = _admin_initiate_auth(self, user_pool_id, client_id, auth_flow, auth_parameters)
    except NotAuthorizedError as exc:
        # moto puts the username in a wrong password's message; Cognito says this, as it
        # does for InitiateAuth.
        if exc.message != auth_parameters.get("USERNAME"):
            raise
        raise NotAuthorizedError("Incorrect username or password.") from exc
    if result and result.get("Session"):
        _session_started[result["Session"]] = now()
    return result


def revoke_token(
    self: models.CognitoIdpBackend, token: str, client_id: str, client_secret: str | None = None
) -> None:
    """RevokeToken: end one refresh token of ``client_id`` (a client with a secret needs its
    ``ClientSecret``). An unknown token is no error (Cognito answers 200 for a token it cannot
    find)."""
    pool, client = _client(self, client_id)
    if client is None:
        raise NotAuthorizedError("Invalid client")
    if client.generate_secret and client_secret != client.secret:
        raise NotAuthorizedError("Client secret is incorrect")
    entry = pool.refresh_tokens.get(token)
    if entry is None:
        return
    if entry[0] != client_id:
        raise NotAuthorizedError("Token was not issued to this client")
    pool.refresh_tokens[token] = None


def _revoke_token_response(self: responses.CognitoIdpResponse) -> EmptyResult:
    # RevokeToken is unsigned, like InitiateAuth: the backend is the one holding the client.
    client_id = self._get_param("ClientId")
    backend = self._get_region_agnostic_backend()._find_backend_for_clientid(client_id)
    backend.revoke_token(  # type: ignore[attr-defined]
        self._get_param("Token"), client_id, self._get_param("ClientSecret")
    )
    return EmptyResult()


# Cognito's attribute verification codes are valid for 24 hours (Amazon Cognito Developer
# Guide, "Verifying contact information at sign-up").
ATTRIBUTE_CODE_TTL_S = 24 * 3600
NO_VERIFIED_ADDRESS = (
    "Cannot reset password for the user as there is no registered/verified email or phone_number"
)
# (pool id, username) -> (code, issued at, time.time() seconds)
_attribute_codes: dict[tuple[str, str], tuple[str, float]] = {}


def _token_user(backend: models.CognitoIdpBackend, access_token: str) -> Any:
    """The pool and user an access token was issued to (moto keeps every token it issued)."""
    for pool in backend.user_pools.values():
        if access_token in pool.access_tokens:
            _, username = pool.access_tokens[access_token]
            return pool, backend.admin_get_user(pool.id, username)
    raise NotAuthorizedError("Invalid Access Token")


def _only_email(attribute_name: str) -> None:
    if attribute_name != "email":
        raise InvalidParameterException("Only the email attribute is verified in this stand-in")


def get_user_attribute_verification_code(
    self: models.CognitoIdpBackend, access_token: str, attribute_name: str
) -> tuple[str, str, dict[str, Any]]:
    """Issue a new code for the token's user's ``attribute_name`` (``email``); returns the
    code, the address and the CodeDeliveryDetails answer."""
    _only_email(attribute_name)
    pool, user = _token_user(self, access_token)
    email = user.attribute_lookup.get("email")
    if not email:
        raise InvalidParameterException("The user has no email address")
    code = f"{secrets.randbelow(1_000_000):06d}"
    _attribute_codes[(pool.id, user.username)] = (code, time.time())
    first, domain = email.split("@", 1)
    details = {"Destination": f"{first[0]}***@{domain[0]}***", "DeliveryMedium": "EMAIL"}
    return code, email, {"CodeDeliveryDetails": {**details, "AttributeName": "email"}}


def verify_user_attribute(
    self: models.CognitoIdpBackend, access_token: str, attribute_name: str, code: str
) -> None:
    """Check ``code`` against the token's user's latest one and mark the address verified."""
    _only_email(attribute_name)
    pool, user = _token_user(self, access_token)
    issued = _attribute_codes.get((pool.id, user.username))
    if issued is None or not secrets.compare_digest(issued[0], code):
        raise CodeMismatchException("Invalid verification code provided, please try again.")
    if time.time() - issued[1] > ATTRIBUTE_CODE_TTL_S:
        raise ExpiredCodeException("Invalid code provided, please request a code again.")
    del _attribute_codes[(pool.id, user.username)]
    user.update_attributes([{"Name": "email_verified", "Value": "true"}])


_forgot_password = models.CognitoIdpBackend.forgot_password


def forgot_password(
    self: models.CognitoIdpBackend, client_id: str, username: str
) -> tuple[str | None, dict[str, Any]]:
    pool, _ = _client(self, client_id)
    user = pool._get_user(username) if pool is not None else None
    mechanisms = ((pool.extended_config if pool else {}).get("AccountRecoverySetting") or {}).get(
        "RecoveryMechanisms"
    ) or []
    by_email = [m for m in mechanisms if m.get("Name") == "verified_email"]
    if (
        user is not None
        and by_email
        and user.attribute_lookup.get("email_verified") != "true"
        and user.attribute_lookup.get("phone_number_verified") != "true"
    ):
        raise InvalidParameterException(NO_VERIFIED_ADDRESS)
    return _forgot_password(self, client_id, username)


def _get_user_attribute_verification_code_response(
    self: responses.CognitoIdpResponse,
) -> ActionResult:
    access_token = self._get_param("AccessToken")
    backend = self._get_region_agnostic_backend()._find_backend_by_access_token(access_token)
    code, email, answer = backend.get_user_attribute_verification_code(  # type: ignore[attr-defined]
        access_token, self._get_param("AttributeName")
    )
    self.response_headers["x-moto-attribute-verification-code"] = code
    self.response_headers["x-moto-attribute-verification-to"] = email
    return ActionResult(answer)


def _verify_user_attribute_response(self: responses.CognitoIdpResponse) -> EmptyResult:
    access_token = self._get_param("AccessToken")
    backend = self._get_region_agnostic_backend()._find_backend_by_access_token(access_token)
    backend.verify_user_attribute(  # type: ignore[attr-defined]
        access_token, self._get_param("AttributeName"), self._get_param("Code")
    )
    return EmptyResult()


# Software token MFA. (pool id, username) -> the secret AssociateSoftwareToken gave last, and
# the one VerifySoftwareToken accepted (what the SOFTWARE_TOKEN_MFA challenge checks).
_pending_secrets: dict[tuple[str, str], str] = {}
_secrets: dict[tuple[str, str], str] = {}
# Cognito's default AuthSessionValidity: a challenge must be answered within 3 minutes.
CHALLENGE_SESSION_TTL_S = 180
_session_started: dict[str, float] = {}
TOTP_DRIFT_STEPS = 1


def now() -> float:
    """The stand-in's clock for challenge sessions and passkey challenges (seconds since the
    epoch); tests of expiry replace it in-process rather than wait."""
    return time.time()


def check_session_age(session: str) -> None:
    """Refuse a challenge session older than Cognito's default ``AuthSessionValidity``."""
    started = _session_started.get(session)
    if started is not None and now() - started > CHALLENGE_SESSION_TTL_S:
        raise NotAuthorizedError("Invalid session for the user, session is expired.")


class SoftwareTokenMFANotFoundException(JsonRESTError):
    def __init__(self) -> None:
        super().__init__(
            "SoftwareTokenMFANotFoundException",
            "Software Token MFA has not been enabled by the userPool.",
        )


class EnableSoftwareTokenMFAException(JsonRESTError):
    def __init__(self) -> None:
        super().__init__("EnableSoftwareTokenMFAException", "Code mismatch")


def _code_matches(secret: str | None, code: str) -> bool:
    if not secret or not code.isdigit():
        return False
    try:
        verify_totp(cognito_totp(secret), code.encode(), valid_window=TOTP_DRIFT_STEPS)
    except InvalidToken:
        return False
    return True


def associate_software_token(
    self: models.CognitoIdpBackend, access_token: str, session: str
) -> dict[str, str]:
    """A new random secret for the token's user; their authenticator stays until a code of
    it is verified."""
    if session:
        raise InvalidParameterException("The stand-in associates with an access token only")
    pool, user = _token_user(self, access_token)
    if pool.token_mfa_config != {"Enabled": True}:
        raise SoftwareTokenMFANotFoundException()
    secret = base64.b32encode(secrets.token_bytes(20)).decode()
    _pending_secrets[(pool.id, user.username)] = secret
    return {"SecretCode": secret}


def verify_software_token(
    self: models.CognitoIdpBackend,
    access_token: str,
    session: str,
    user_code: str,
    friendly_device_name: str,
) -> dict[str, str]:
    """Check a code of the secret associated last; it becomes the user's authenticator."""
    if session:
        raise InvalidParameterException("The stand-in verifies with an access token only")
    pool, user = _token_user(self, access_token)
    key = (pool.id, user.username)
    if not _code_matches(_pending_secrets.get(key), user_code or ""):
        raise EnableSoftwareTokenMFAException()
    _secrets[key] = _pending_secrets.pop(key)
    user.token_verified = True
    return {"Status": "SUCCESS"}


_respond_to_auth_challenge = models.CognitoIdpBackend.respond_to_auth_challenge


def respond_to_auth_challenge(
    self: models.CognitoIdpBackend,
    session: str,
    client_id: str,
    challenge_name: str,
    challenge_responses: dict[str, str],
) -> dict[str, Any]:
    check_session_age(session)
    if challenge_name == "SOFTWARE_TOKEN_MFA" and session in self.sessions:
        username, pool = self.sessions[session]
        code = (challenge_responses or {}).get("SOFTWARE_TOKEN_MFA_CODE") or ""
        if not _code_matches(_secrets.get((pool.id, username)), code):
            raise CodeMismatchException("Invalid code received for user")
    result = _respond_to_auth_challenge(
        self, session, client_id, challenge_name, challenge_responses
    )
    if "AuthenticationResult" in result:
        _session_started.pop(session, None)
    return result


# Refreshed tokens carry the auth_time of the sign-in their refresh token came from.
_refresh_auth_time: dict[str, int] = {}
_auth_time: contextvars.ContextVar[int | None] = contextvars.ContextVar("auth_time", default=None)
_create_refresh_token = models.CognitoIdpUserPool.create_refresh_token
_create_tokens_from_refresh_token = models.CognitoIdpUserPool.create_tokens_from_refresh_token
_create_jwt = models.CognitoIdpUserPool.create_jwt


def create_refresh_token(
    self: models.CognitoIdpUserPool, client_id: str, username: str
) -> tuple[str, str]:
    refresh_token, origin_jti = _create_refresh_token(self, client_id, username)
    _refresh_auth_time[refresh_token] = int(time.time())
    return refresh_token, origin_jti


def create_tokens_from_refresh_token(
    self: models.CognitoIdpUserPool, refresh_token: str
) -> tuple[str, str, int]:
    reset = _auth_time.set(_refresh_auth_time.get(refresh_token))
    try:
        return _create_tokens_from_refresh_token(self, refresh_token)
    finally:
        _auth_time.reset(reset)


def create_jwt(
    self: models.CognitoIdpUserPool,
    client_id: str,
    username: str,
    token_use: str,
    expires_in: int = 60 * 60,
    extra_data: dict[str, Any] | None = None,
) -> tuple[str, int]:
    auth_time = _auth_time.get()
    if auth_time is not None:
        extra_data = {**(extra_data or {}), "auth_time": auth_time}
    return _create_jwt(self, client_id, username, token_use, expires_in, extra_data)


# SAML request signing: pool id -> (certificate, base64 DER; private key, PEM).
_signing_keys: dict[str, tuple[str, bytes]] = {}
SIGNING_CERTIFICATE_DAYS = 3650


def get_signing_certificate(self: models.CognitoIdpBackend, user_pool_id: str) -> tuple[str, bytes]:
    """The pool's SAML signing certificate and key, made at the first call."""
    self.describe_user_pool(user_pool_id)  # ResourceNotFoundException for an unknown pool
    if user_pool_id not in _signing_keys:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = datetime.now(UTC)
        certificate = new_certificate(
            key,
            common_name=user_pool_id,  # a CN holds 64 characters; a pool id 55
            not_before=now - timedelta(minutes=5),
            not_after=now + timedelta(days=SIGNING_CERTIFICATE_DAYS),
        )
        der = certificate.public_bytes(serialization.Encoding.DER)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _signing_keys[user_pool_id] = (base64.b64encode(der).decode(), pem)
    return _signing_keys[user_pool_id]


def _get_signing_certificate_response(self: responses.CognitoIdpResponse) -> ActionResult:
    certificate, key = self.backend.get_signing_certificate(  # type: ignore[attr-defined]
        self._get_param("UserPoolId")
    )
    self.response_headers["x-moto-signing-key"] = base64.b64encode(key).decode()
    return ActionResult({"Certificate": certificate})


_moto_base_json = models.CognitoIdpUser._base_json


def _base_json(self: models.CognitoIdpUser) -> dict[str, Any]:
    """A user as Cognito shows it: a user federated from a third-party or SAML identity
    provider (the ``identities`` attribute, which Cognito alone sets: here the hosted sign-in
    stand-in, as Cognito does at federation) has the status ``EXTERNAL_PROVIDER``, which moto
    does not have, so the API reads the stand-in's users exactly as it reads Cognito's
    (``api.principal.identity.prove_identity``)."""
    shown = _moto_base_json(self)
    if self.attribute_lookup.get("identities"):
        shown["UserStatus"] = "EXTERNAL_PROVIDER"
    return shown


_create_user_pool_client = models.CognitoIdpBackend.create_user_pool_client


def create_user_pool_client(
    self: models.CognitoIdpBackend,
    user_pool_id: str,
    generate_secret: bool,
    extended_config: dict[str, str],
) -> Any:
    """CreateUserPoolClient, with a client secret of Cognito's form (letters and digits; moto
    makes a UUID, whose hyphens Cognito's model refuses in RevokeToken's ``ClientSecret``)."""
    client = _create_user_pool_client(self, user_pool_id, generate_secret, extended_config)
    client.secret = secrets.token_hex(26)[:51]
    return client


def install() -> None:
    """Patch moto's Cognito backend and responses (idempotent)."""
    models.CognitoIdpBackend.create_user_pool_client = create_user_pool_client  # type: ignore[method-assign]
    models.CognitoIdpBackend.initiate_auth = initiate_auth  # type: ignore[method-assign]
    models.CognitoIdpBackend.admin_initiate_auth = admin_initiate_auth  # type: ignore[method-assign]
    models.CognitoIdpBackend.revoke_token = revoke_token  # type: ignore[attr-defined]
    responses.CognitoIdpResponse.revoke_token = _revoke_token_response  # type: ignore[attr-defined]
    models.CognitoIdpBackend.forgot_password = forgot_password  # type: ignore[method-assign]
    backend = models.CognitoIdpBackend
    backend.get_user_attribute_verification_code = get_user_attribute_verification_code  # type: ignore[attr-defined]
    backend.verify_user_attribute = verify_user_attribute  # type: ignore[attr-defined]
    response = responses.CognitoIdpResponse
    response.get_user_attribute_verification_code = (  # type: ignore[attr-defined]
        _get_user_attribute_verification_code_response
    )
    response.verify_user_attribute = _verify_user_attribute_response  # type: ignore[attr-defined]
    backend.associate_software_token = associate_software_token  # type: ignore[method-assign]
    backend.verify_software_token = verify_software_token  # type: ignore[method-assign]
    backend.respond_to_auth_challenge = respond_to_auth_challenge  # type: ignore[method-assign]
    backend.get_signing_certificate = get_signing_certificate  # type: ignore[attr-defined]
    response.get_signing_certificate = _get_signing_certificate_response  # type: ignore[attr-defined]
    models.CognitoIdpUser._base_json = _base_json  # type: ignore[method-assign]
    pool = models.CognitoIdpUserPool
    pool.create_refresh_token = create_refresh_token  # type: ignore[method-assign]
    pool.create_tokens_from_refresh_token = create_tokens_from_refresh_token  # type: ignore[method-assign]
    pool.create_jwt = create_jwt  # type: ignore[method-assign]
    # Imported here: devstack.moto_webauthn builds on this module's functions and state.
    from devstack import moto_webauthn

    moto_webauthn.install()


if __name__ == "__main__":
    # Installed from devstack.moto_server, not from this __main__ copy of the module, so that
    # devstack.moto_webauthn shares the same challenge sessions, secrets and clock.
    from devstack.moto_server import install as install_stand_in

    install_stand_in()
    main(sys.argv[1:])
