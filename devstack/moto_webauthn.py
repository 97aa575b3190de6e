"""Passkeys (WebAuthn) and choice-based sign-in (``USER_AUTH``) for the Cognito stand-in, which
moto 5.2.5 lacks entirely. Installed by ``devstack.moto_server.install``, whose sessions, clock
and token lookup it shares. What is added (Amazon Cognito API Reference; the WebAuthn checks
are py_webauthn's, the library the stand-in verifies with):

- **The pool's passkey settings.** ``SetUserPoolMfaConfig`` takes ``WebAuthnConfiguration``
  (``RelyingPartyId`` 1 to 127 characters, ``UserVerification`` ``required`` or
  ``preferred``, ``FactorConfiguration``) and ``GetUserPoolMfaConfig`` returns it
  (``UserVerification`` ``preferred`` when unset, Cognito's default); a request without it
  keeps what was set. The relying party (RP) ID is ``RelyingPartyId``, else the pool's
  domain (a prefix domain is ``<prefix>.auth.<region>.amazoncognito.com``); with neither,
  the operations below answer ``WebAuthnConfigurationMissingException``. Passkeys are on
  when the pool's ``Policies.SignInPolicy.AllowedFirstAuthFactors`` holds ``WEB_AUTHN``
  (Cognito's default is ``PASSWORD`` alone): otherwise registering is
  ``WebAuthnNotEnabledException``. ``FactorConfiguration`` is kept and shown, nothing more:
  passkeys as a second factor are not in the stand-in.
- **StartWebAuthnRegistration** (``AccessToken``): ``CredentialCreationOptions`` as a JSON
  document (``webauthn.generate_registration_options``): ``rp`` {``id``, ``name``: the RP
  ID}, ``user`` {``id``: the user's ``sub``, base64url; ``name`` and ``displayName``: the
  username}, a fresh 64-byte ``challenge``, ``pubKeyCredParams`` ES256 (-7) and RS256
  (-257), ``excludeCredentials`` (the user's passkeys, with their transports),
  ``authenticatorSelection`` {``residentKey`` ``required``, ``userVerification``: the
  pool's}, ``attestation`` ``none`` and ``timeout`` 180000 ms. The challenge is the user's
  one waiting registration (a new start replaces it) for 3 minutes, bound to the access
  token's app client.
- **CompleteWebAuthnRegistration** (``AccessToken``, ``Credential``: a
  RegistrationResponseJSON, as a document or a JSON string) takes the waiting challenge,
  whatever the outcome (a challenge serves one ceremony), and refuses
  with Cognito's error shapes: no challenge waiting, or an older one than the credential
  answers, or one past its 3 minutes: ``WebAuthnChallengeNotFoundException``; a token of
  another app client than the start's: ``WebAuthnClientMismatchException``; a
  ``clientDataJSON`` origin that is not the RP ID or a subdomain of it over https (or
  ``http://localhost`` with any port when the RP ID is ``localhost``, the one insecure origin
  browsers allow WebAuthn on): ``WebAuthnOriginNotAllowedException``; an ``rpIdHash`` of
  another RP ID: ``WebAuthnRelyingPartyMismatchException``; a key other than ES256 or RS256,
  or no user verification when the pool requires it:
  ``WebAuthnCredentialNotSupportedException``; a credential ID already registered in the
  pool (WebAuthn 7.1 says to refuse it) or a response that does not verify otherwise:
  ``InvalidParameterException``. Attestation ``none`` is accepted; others are verified by
  py_webauthn without trusted roots. The passkey is kept per pool user (their ``sub``): its
  ID, public key, sign count, transports, attachment, creation time and RP ID.
- **ListWebAuthnCredentials** (``AccessToken``, ``MaxResults`` 0 to 20, ``NextToken``):
  oldest first, 20 a page when ``MaxResults`` is absent or 0; ``NextToken`` is the ID of the
  next passkey (an unknown one is ``InvalidParameterException``). Each is a
  ``WebAuthnCredentialDescription``: ``FriendlyCredentialName`` is derived from the
  attachment, "Roaming passkey" for ``cross-platform`` as in the AWS CLI's example output,
  "Platform passkey" for ``platform`` and "Passkey" without one (Cognito does not document
  how it names them).
- **DeleteWebAuthnCredential** (``AccessToken``, ``CredentialId``): an ID that is not one of
  the user's passkeys is ``ResourceNotFoundException``.
- These four need an access token with the ``aws.cognito.signin.user.admin`` scope, as
  Cognito's do (``NotAuthorizedException`` otherwise, as for a revoked or unknown token).
- **USER_AUTH** (``InitiateAuth`` and ``AdminInitiateAuth``; the client must allow
  ``ALLOW_USER_AUTH``: devstack/moto_server.py's flow table). ``USERNAME`` is required
  (there is no sign-in without one: no discoverable-credential, "usernameless", sign-in);
  an unknown user is ``UserNotFoundException``, a disabled one ``NotAuthorizedException``.
  The user's choices are the pool's first factors they can use: ``PASSWORD`` (they have
  one) and ``WEB_AUTHN`` (they have a passkey). ``PREFERRED_CHALLENGE`` ``WEB_AUTHN`` answers
  the ``WEB_AUTHN`` challenge: ``ChallengeParameters.CREDENTIAL_REQUEST_OPTIONS``, the JSON of
  ``webauthn.generate_authentication_options`` (the RP ID, a fresh challenge,
  ``allowCredentials``: the user's passkeys, ``userVerification``: the pool's); ``PASSWORD``
  with ``PASSWORD`` in the parameters signs in with the password, exactly as
  ``ADMIN_USER_PASSWORD_AUTH`` does (so ``ALLOW_USER_AUTH`` on a client is a password
  sign-in of its own whenever the pool allows ``PASSWORD`` first, as the model says of
  ``ALLOW_USER_AUTH``); with no preference, or one the user cannot use, the answer is
  ``SELECT_CHALLENGE`` with ``AvailableChallenges`` (``NotAuthorizedException`` when there is
  none). SRP, ``EMAIL_OTP`` and ``SMS_OTP`` are not in the stand-in.
- **RespondToAuthChallenge / AdminRespondToAuthChallenge.** ``SELECT_CHALLENGE`` with
  ``ANSWER`` ``WEB_AUTHN`` answers the ``WEB_AUTHN`` challenge, with ``ANSWER`` ``PASSWORD`` and
  ``PASSWORD`` signs in with the password. ``WEB_AUTHN`` with ``USERNAME`` and ``CREDENTIAL``
  (an AuthenticationResponseJSON, as a string) checks the assertion against that session's
  challenge, RP ID and origin (as above), the user's passkey of that ID (a deleted one is
  refused), its signature, user verification when the pool requires it, the user handle
  when given, and a sign count that must exceed the stored one unless both are 0 (a replayed
  or cloned authenticator's assertion is refused); then tokens are minted by moto's own
  sign-in (``_log_user_in``), so they carry ``origin_jti`` and refresh like the other flows'.
  The model lists no WebAuthn error for these operations: every refusal is
  ``NotAuthorizedException`` (the message says why). A session serves one answer, right or
  wrong, and is bound to its app client and user; sessions expire as the stand-in's others do
  (3 minutes, ``devstack.moto_server.check_session_age``).

What Cognito requires that the stand-in does not check: the pool's Essentials (or Plus)
feature plan, for ``ALLOW_USER_AUTH``, ``SignInPolicy`` and passkeys alike. The stand-in's
clock is
``devstack.moto_server.now``, which tests replace in-process.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from moto.cognitoidp import models, responses
from moto.cognitoidp.exceptions import (
    InvalidParameterException,
    NotAuthorizedError,
    ResourceNotFoundError,
    UserNotFoundError,
)
from moto.cognitoidp.utils import check_secret_hash
from moto.core.exceptions import JsonRESTError
from moto.core.responses import ActionResult, EmptyResult
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    base64url_to_bytes,
    bytes_to_base64url,
    decode_credential_public_key,
    options_to_json,
    options_to_json_dict,
    parse_attestation_object,
    parse_authentication_credential_json,
    parse_client_data_json,
    parse_registration_credential_json,
)
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    ClientDataType,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from devstack import moto_server as stand_in

ADMIN_SCOPE = "aws.cognito.signin.user.admin"
# ES256 and RS256, the algorithms the stand-in offers and accepts (Cognito does not list its).
ALGORITHMS = [
    COSEAlgorithmIdentifier.ECDSA_SHA_256,
    COSEAlgorithmIdentifier.RSASSA_PKCS1_v1_5_SHA_256,
]
# A registration challenge lives as long as a sign-in's challenge session.
CHALLENGE_TTL_S = stand_in.CHALLENGE_SESSION_TTL_S
PAGE_SIZE = 20  # ListWebAuthnCredentials' MaxResults maximum (botocore's model)
USER_VERIFICATION = ("required", "preferred")
FACTOR_CONFIGURATIONS = ("SINGLE_FACTOR", "MULTI_FACTOR_WITH_USER_VERIFICATION")
FRIENDLY_NAMES = {"cross-platform": "Roaming passkey", "platform": "Platform passkey"}


class WebAuthnError(JsonRESTError):
    """One of Cognito's WebAuthn error shapes (``code``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)


def _not_enabled() -> WebAuthnError:
    return WebAuthnError(
        "WebAuthnNotEnabledException",
        "Passkeys are not enabled: the user pool's AllowedFirstAuthFactors lack WEB_AUTHN.",
    )


def _configuration_missing() -> WebAuthnError:
    return WebAuthnError(
        "WebAuthnConfigurationMissingException",
        "The user pool has no WebAuthn relying party ID and no domain.",
    )


def _challenge_not_found() -> WebAuthnError:
    return WebAuthnError(
        "WebAuthnChallengeNotFoundException",
        "No passkey registration challenge is waiting for this user, or it expired.",
    )


@dataclass
class Passkey:
    """A registered passkey of one pool user."""

    credential_id: str  # base64url, as browsers and Cognito show it
    public_key: bytes  # COSE
    sign_count: int
    transports: list[str]
    attachment: str | None
    created_at: datetime
    relying_party_id: str

    def description(self) -> dict[str, Any]:
        """Its WebAuthnCredentialDescription."""
        shown: dict[str, Any] = {
            "CredentialId": self.credential_id,
            "FriendlyCredentialName": FRIENDLY_NAMES.get(self.attachment or "", "Passkey"),
            "RelyingPartyId": self.relying_party_id,
            "AuthenticatorTransports": list(self.transports),
            "CreatedAt": self.created_at,
        }
        if self.attachment:
            shown["AuthenticatorAttachment"] = self.attachment
        return shown

    def descriptor(self) -> PublicKeyCredentialDescriptor:
        """How options name it (``excludeCredentials``, ``allowCredentials``)."""
        known = {t.value: t for t in AuthenticatorTransport}
        transports = [known[t] for t in self.transports if t in known]
        return PublicKeyCredentialDescriptor(
            id=base64url_to_bytes(self.credential_id), transports=transports or None
        )


@dataclass
class Registration:
    """The challenge of a user's last StartWebAuthnRegistration."""

    challenge: bytes
    client_id: str
    issued_at: float


@dataclass
class Pending:
    """A challenge session of USER_AUTH: ``SELECT_CHALLENGE`` or ``WEB_AUTHN``."""

    name: str
    pool_id: str
    username: str
    client_id: str
    challenge: bytes = b""
    relying_party_id: str = ""
    user_verification: str = "preferred"


# pool id -> its WebAuthnConfiguration as set
_configurations: dict[str, dict[str, str]] = {}
# (pool id, sub) -> the user's passkeys, oldest first
_passkeys: dict[tuple[str, str], list[Passkey]] = {}
# (pool id, sub) -> the registration challenge waiting
_registrations: dict[tuple[str, str], Registration] = {}
# session -> what it waits for
_pending: dict[str, Pending] = {}


# --- the pool's settings ------------------------------------------------------------------


def _first_factors(pool: Any) -> list[str]:
    policy = (pool.extended_config.get("Policies") or {}).get("SignInPolicy") or {}
    return list(policy.get("AllowedFirstAuthFactors") or ["PASSWORD"])


def _relying_party_id(pool: Any) -> str:
    configured = _configurations.get(pool.id, {}).get("RelyingPartyId")
    if configured:
        return configured
    domain = pool.domain
    if domain is None:
        raise _configuration_missing()
    if domain.custom_domain_config:
        return str(domain.domain)
    return f"{domain.domain}.auth.{pool.region}.amazoncognito.com"


def _user_verification(pool: Any) -> str:
    return _configurations.get(pool.id, {}).get("UserVerification") or "preferred"


def _check_enabled(pool: Any) -> None:
    if "WEB_AUTHN" not in _first_factors(pool):
        raise _not_enabled()


def set_web_authn_configuration(pool_id: str, configuration: dict[str, Any]) -> None:
    """Check and keep a pool's WebAuthnConfiguration (SetUserPoolMfaConfig's)."""
    relying_party = configuration.get("RelyingPartyId")
    if relying_party is not None and not 1 <= len(str(relying_party)) <= 127:
        raise InvalidParameterException("RelyingPartyId must be 1 to 127 characters long")
    verification = configuration.get("UserVerification")
    if verification is not None and verification not in USER_VERIFICATION:
        raise InvalidParameterException(f"UserVerification must be one of {USER_VERIFICATION}")
    factor = configuration.get("FactorConfiguration")
    if factor is not None and factor not in FACTOR_CONFIGURATIONS:
        raise InvalidParameterException(
            f"FactorConfiguration must be one of {FACTOR_CONFIGURATIONS}"
        )
    _configurations[pool_id] = {k: str(v) for k, v in configuration.items() if v is not None}


_get_user_pool_mfa_config = models.CognitoIdpBackend.get_user_pool_mfa_config


def get_user_pool_mfa_config(self: models.CognitoIdpBackend, user_pool_id: str) -> dict[str, Any]:
    shown = _get_user_pool_mfa_config(self, user_pool_id)
    return {
        **shown,
        "WebAuthnConfiguration": {
            "UserVerification": "preferred",
            **_configurations.get(user_pool_id, {}),
        },
    }


_set_user_pool_mfa_config_response = responses.CognitoIdpResponse.set_user_pool_mfa_config


def _set_user_pool_mfa_config(self: responses.CognitoIdpResponse) -> ActionResult:
    _set_user_pool_mfa_config_response(self)  # moto's checks and settings first
    user_pool_id = self._get_param("UserPoolId")
    configuration = self._get_param("WebAuthnConfiguration")
    if configuration is not None:
        set_web_authn_configuration(user_pool_id, configuration)
    return ActionResult(self.backend.get_user_pool_mfa_config(user_pool_id))


# --- registration -------------------------------------------------------------------------


def _signed_in(backend: models.CognitoIdpBackend, access_token: str) -> tuple[Any, Any, str]:
    """The pool, user and app client of an access token with the admin scope."""
    pool, user = stand_in._token_user(backend, access_token)
    client_id, _ = pool.access_tokens[access_token]
    payload = access_token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    if ADMIN_SCOPE not in str(claims.get("scope", "")).split():
        raise NotAuthorizedError("Access Token does not have required scopes")
    return pool, user, str(client_id)


def _origin_allowed(origin: str, relying_party_id: str) -> bool:
    """An origin aligns with the RP ID when its host is the RP ID or a subdomain of it, over
    https; or it is ``http://localhost`` (any port) for the RP ID ``localhost``, the one
    insecure origin browsers allow WebAuthn on (W3C Secure Contexts, "localhost")."""
    try:
        parts = urlsplit(origin)
        host = parts.hostname or ""
        _ = parts.port  # raises ValueError for a malformed port
    except ValueError:
        return False
    if parts.scheme == "http":
        return host == relying_party_id == "localhost"
    return parts.scheme == "https" and (
        host == relying_party_id or host.endswith("." + relying_party_id)
    )


def start_web_authn_registration(
    self: models.CognitoIdpBackend, access_token: str
) -> dict[str, Any]:
    """The CredentialCreationOptions for the token's user; its challenge waits 3 minutes."""
    pool, user, client_id = _signed_in(self, access_token)
    _check_enabled(pool)
    relying_party = _relying_party_id(pool)
    options = generate_registration_options(
        rp_id=relying_party,
        rp_name=relying_party,
        user_name=user.username,
        user_id=str(user.id).encode(),
        user_display_name=user.username,
        timeout=CHALLENGE_TTL_S * 1000,
        attestation=AttestationConveyancePreference.NONE,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement(_user_verification(pool)),
        ),
        exclude_credentials=[p.descriptor() for p in _passkeys.get((pool.id, user.id), [])],
        supported_pub_key_algs=ALGORITHMS,
    )
    _registrations[(pool.id, user.id)] = Registration(options.challenge, client_id, stand_in.now())
    return options_to_json_dict(options)


def complete_web_authn_registration(
    self: models.CognitoIdpBackend, access_token: str, credential: Any
) -> None:
    """Verify the RegistrationResponseJSON against the waiting challenge and keep the
    passkey; refusals are the Cognito errors of the module docstring."""
    pool, user, client_id = _signed_in(self, access_token)
    _check_enabled(pool)
    relying_party = _relying_party_id(pool)
    required = _user_verification(pool) == "required"
    waiting = _registrations.pop((pool.id, user.id), None)
    if waiting is None or stand_in.now() - waiting.issued_at > CHALLENGE_TTL_S:
        raise _challenge_not_found()
    if waiting.client_id != client_id:
        raise WebAuthnError(
            "WebAuthnClientMismatchException",
            "The access token is of another app client than the registration's start.",
        )
    try:
        parsed = parse_registration_credential_json(credential)
        client_data = parse_client_data_json(parsed.response.client_data_json)
        attestation = parse_attestation_object(parsed.response.attestation_object)
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise InvalidParameterException(f"The credential is malformed: {exc}") from exc
    if client_data.type != ClientDataType.WEBAUTHN_CREATE:
        raise InvalidParameterException("The credential is not a registration response")
    if client_data.challenge != waiting.challenge:
        raise _challenge_not_found()
    if not _origin_allowed(client_data.origin, relying_party):
        raise WebAuthnError(
            "WebAuthnOriginNotAllowedException",
            f"The origin {client_data.origin} does not align with the relying party ID "
            f"{relying_party}.",
        )
    auth_data = attestation.auth_data
    if auth_data.rp_id_hash != hashlib.sha256(relying_party.encode()).digest():
        raise WebAuthnError(
            "WebAuthnRelyingPartyMismatchException",
            f"The passkey was made for another relying party than {relying_party}.",
        )
    attested = auth_data.attested_credential_data
    if attested is None:
        raise InvalidParameterException("The credential has no attested credential data")
    if required and not auth_data.flags.uv:
        raise WebAuthnError(
            "WebAuthnCredentialNotSupportedException",
            "The user pool requires user verification; the authenticator did not verify the user.",
        )
    try:
        algorithm = decode_credential_public_key(attested.credential_public_key).alg
    except WebAuthnException as exc:
        raise WebAuthnError("WebAuthnCredentialNotSupportedException", str(exc)) from exc
    if algorithm not in ALGORITHMS:
        raise WebAuthnError(
            "WebAuthnCredentialNotSupportedException",
            f"The passkey's algorithm {algorithm} is not supported (ES256 and RS256 are).",
        )
    try:
        verified = verify_registration_response(
            credential=parsed,
            expected_challenge=waiting.challenge,
            expected_rp_id=relying_party,
            expected_origin=client_data.origin,
            require_user_verification=required,
            supported_pub_key_algs=ALGORITHMS,
        )
    except WebAuthnException as exc:
        raise InvalidParameterException(f"The credential does not verify: {exc}") from exc
    credential_id = bytes_to_base64url(verified.credential_id)
    for (pool_id, _), kept in _passkeys.items():
        if pool_id == pool.id and any(p.credential_id == credential_id for p in kept):
            raise InvalidParameterException("This passkey is already registered")
    _passkeys.setdefault((pool.id, user.id), []).append(
        Passkey(
            credential_id=credential_id,
            public_key=verified.credential_public_key,
            sign_count=verified.sign_count,
            transports=[t.value for t in parsed.response.transports or []],
            attachment=parsed.authenticator_attachment.value
            if parsed.authenticator_attachment
            else None,
            created_at=datetime.fromtimestamp(stand_in.now(), UTC),
            relying_party_id=relying_party,
        )
    )


def list_web_authn_credentials(
    self: models.CognitoIdpBackend,
    access_token: str,
    max_results: int | None,
    next_token: str | None,
) -> dict[str, Any]:
    """A page of the token's user's passkeys, oldest first."""
    pool, user, _ = _signed_in(self, access_token)
    if max_results is not None and not 0 <= max_results <= PAGE_SIZE:
        raise InvalidParameterException(f"MaxResults must be 0 to {PAGE_SIZE}")
    kept = _passkeys.get((pool.id, user.id), [])
    start = 0
    if next_token:
        ids = [p.credential_id for p in kept]
        if next_token not in ids:
            raise InvalidParameterException("Invalid NextToken")
        start = ids.index(next_token)
    size = max_results or PAGE_SIZE
    page = kept[start : start + size]
    answer: dict[str, Any] = {"Credentials": [p.description() for p in page]}
    if start + size < len(kept):
        answer["NextToken"] = kept[start + size].credential_id
    return answer


def delete_web_authn_credential(
    self: models.CognitoIdpBackend, access_token: str, credential_id: str
) -> None:
    """Forget one of the token's user's passkeys."""
    pool, user, _ = _signed_in(self, access_token)
    kept = _passkeys.get((pool.id, user.id), [])
    for passkey in kept:
        if passkey.credential_id == credential_id:
            kept.remove(passkey)
            return
    raise ResourceNotFoundError("The passkey does not exist")


# --- choice-based sign-in -----------------------------------------------------------------


def _available(pool: Any, user: Any) -> list[str]:
    """The first factors of the pool the user can sign in with."""
    factors = _first_factors(pool)
    available = []
    if "PASSWORD" in factors and user.password:
        available.append("PASSWORD")
    if "WEB_AUTHN" in factors and _passkeys.get((pool.id, user.id)):
        available.append("WEB_AUTHN")
    return available


def _new_session(backend: models.CognitoIdpBackend, pending: Pending, pool: Any) -> str:
    session = secrets.token_urlsafe(48)
    backend.sessions[session] = (pending.username, pool)
    stand_in._session_started[session] = stand_in.now()
    _pending[session] = pending
    return session


def _end_session(backend: models.CognitoIdpBackend, session: str) -> None:
    _pending.pop(session, None)
    backend.sessions.pop(session, None)
    stand_in._session_started.pop(session, None)


def _web_authn_challenge(
    backend: models.CognitoIdpBackend, pool: Any, client_id: str, user: Any
) -> dict[str, Any]:
    relying_party = _relying_party_id(pool)
    verification = _user_verification(pool)
    options = generate_authentication_options(
        rp_id=relying_party,
        timeout=CHALLENGE_TTL_S * 1000,
        allow_credentials=[p.descriptor() for p in _passkeys.get((pool.id, user.id), [])],
        user_verification=UserVerificationRequirement(verification),
    )
    pending = Pending(
        "WEB_AUTHN",
        pool.id,
        user.username,
        client_id,
        options.challenge,
        relying_party,
        verification,
    )
    return {
        "ChallengeName": "WEB_AUTHN",
        "Session": _new_session(backend, pending, pool),
        "ChallengeParameters": {"CREDENTIAL_REQUEST_OPTIONS": options_to_json(options)},
    }


def _password_sign_in(
    backend: models.CognitoIdpBackend, pool: Any, client_id: str, username: str, password: str
) -> dict[str, Any]:
    return stand_in.admin_auth_allowed(
        backend,
        pool.id,
        client_id,
        "ADMIN_USER_PASSWORD_AUTH",
        {"USERNAME": username, "PASSWORD": password},
    )


def _check_secret_hash(pool: Any, client_id: str, username: str, secret_hash: str | None) -> None:
    """A client with a secret takes only requests with its ``SECRET_HASH`` for ``username``
    (Cognito's message for a missing or wrong one)."""
    client = pool.clients.get(client_id)
    if client is None or not client.generate_secret:
        return
    if not check_secret_hash(client.secret, client.id, username, secret_hash):
        raise NotAuthorizedError(f"Unable to verify secret hash for client {client_id}")


def _user_auth(
    backend: models.CognitoIdpBackend, pool: Any, client_id: str, parameters: dict[str, str]
) -> dict[str, Any]:
    """USER_AUTH's answer: the preferred challenge when the user can use it, else
    SELECT_CHALLENGE."""
    username = parameters.get("USERNAME")
    if not username:
        raise InvalidParameterException("Missing required parameter USERNAME")
    _check_secret_hash(pool, client_id, username, parameters.get("SECRET_HASH"))
    user = pool._get_user(username)
    if user is None:
        raise UserNotFoundError("User does not exist.")
    if not user.enabled:
        raise NotAuthorizedError("User is disabled.")
    available = _available(pool, user)
    preferred = parameters.get("PREFERRED_CHALLENGE")
    if preferred == "WEB_AUTHN" and preferred in available:
        return _web_authn_challenge(backend, pool, client_id, user)
    if preferred == "PASSWORD" and preferred in available and parameters.get("PASSWORD"):
        return _password_sign_in(backend, pool, client_id, user.username, parameters["PASSWORD"])
    if not available:
        raise NotAuthorizedError("The user has no sign-in method this user pool allows.")
    pending = Pending("SELECT_CHALLENGE", pool.id, user.username, client_id)
    return {
        "ChallengeName": "SELECT_CHALLENGE",
        "Session": _new_session(backend, pending, pool),
        "ChallengeParameters": {},
        "AvailableChallenges": available,
    }


def initiate_auth(
    self: models.CognitoIdpBackend,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    if auth_flow != "USER_AUTH":
        return stand_in.initiate_auth(self, client_id, auth_flow, auth_parameters)
    pool, _ = stand_in._client(self, client_id)
    if pool is None:
        raise ResourceNotFoundError(client_id)
    stand_in._check_flow(self, client_id, auth_flow)
    return _user_auth(self, pool, client_id, auth_parameters or {})


def admin_initiate_auth(
    self: models.CognitoIdpBackend,
    user_pool_id: str,
    client_id: str,
    auth_flow: str,
    auth_parameters: dict[str, str],
) -> dict[str, Any]:
    if auth_flow != "USER_AUTH":
        return stand_in.admin_initiate_auth(
            self, user_pool_id, client_id, auth_flow, auth_parameters
        )
    pool = self.describe_user_pool(user_pool_id)
    if client_id not in pool.clients:
        raise ResourceNotFoundError(client_id)
    stand_in._check_flow(self, client_id, auth_flow)
    return _user_auth(self, pool, client_id, auth_parameters or {})


def _verify_assertion(pending: Pending, user: Any, answer: str) -> Passkey:
    """The user's passkey that signed ``answer`` (an AuthenticationResponseJSON) for the
    session's challenge, its sign count moved on. Raises NotAuthorizedError."""
    try:
        parsed = parse_authentication_credential_json(answer)
        client_data = parse_client_data_json(parsed.response.client_data_json)
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise InvalidParameterException(f"The CREDENTIAL is malformed: {exc}") from exc
    passkey = next(
        (p for p in _passkeys.get((pending.pool_id, user.id), []) if p.credential_id == parsed.id),
        None,
    )
    if passkey is None:
        raise NotAuthorizedError("The passkey is not registered for this user.")
    if not _origin_allowed(client_data.origin, pending.relying_party_id):
        raise NotAuthorizedError(
            f"The origin {client_data.origin} does not align with the relying party ID "
            f"{pending.relying_party_id}."
        )
    handle = parsed.response.user_handle
    if handle and handle != str(user.id).encode():
        raise NotAuthorizedError("The passkey's user handle is another user's.")
    try:
        verified = verify_authentication_response(
            credential=parsed,
            expected_challenge=pending.challenge,
            expected_rp_id=pending.relying_party_id,
            expected_origin=client_data.origin,
            credential_public_key=passkey.public_key,
            credential_current_sign_count=passkey.sign_count,
            require_user_verification=pending.user_verification == "required",
        )
    except WebAuthnException as exc:
        raise NotAuthorizedError(f"The passkey's answer does not verify: {exc}") from exc
    passkey.sign_count = verified.new_sign_count
    return passkey


def respond_to_auth_challenge(
    self: models.CognitoIdpBackend,
    session: str,
    client_id: str,
    challenge_name: str,
    challenge_responses: dict[str, str],
) -> dict[str, Any]:
    if challenge_name not in ("WEB_AUTHN", "SELECT_CHALLENGE"):
        return stand_in.respond_to_auth_challenge(
            self, session, client_id, challenge_name, challenge_responses
        )
    pending = _pending.get(session)
    if pending is None or pending.name != challenge_name:
        raise NotAuthorizedError("Invalid session for the user.")
    try:
        stand_in.check_session_age(session)
    finally:
        # A session serves one answer, right or wrong (or none, once expired).
        _end_session(self, session)
    if pending.client_id != client_id:
        raise NotAuthorizedError("Invalid session for the user.")
    pool = self.describe_user_pool(pending.pool_id)
    answers = challenge_responses or {}
    user = pool._get_user(answers.get("USERNAME", ""))
    if user is None or user.username != pending.username:
        raise NotAuthorizedError("The USERNAME is not the session's user.")
    _check_secret_hash(pool, client_id, answers["USERNAME"], answers.get("SECRET_HASH"))
    if challenge_name == "SELECT_CHALLENGE":
        answer = answers.get("ANSWER")
        available = _available(pool, user)
        if answer == "WEB_AUTHN" and answer in available and "CREDENTIAL" not in answers:
            return _web_authn_challenge(self, pool, client_id, user)
        if answer == "PASSWORD" and answer in available and answers.get("PASSWORD"):
            return _password_sign_in(self, pool, client_id, user.username, answers["PASSWORD"])
        raise InvalidParameterException(
            f"ANSWER must be one of {available} with its parameters (the stand-in answers "
            "WEB_AUTHN with the WEB_AUTHN challenge)"
        )
    if not user.enabled:
        raise NotAuthorizedError("User is disabled.")
    if not answers.get("CREDENTIAL"):
        raise InvalidParameterException("Missing required parameter CREDENTIAL")
    _verify_assertion(pending, user, answers["CREDENTIAL"])
    client = pool.clients.get(client_id)
    if client is None:
        raise ResourceNotFoundError(client_id)
    return self._log_user_in(pool, client, user.username)


# --- the operations' responses ------------------------------------------------------------


def _token_backend(response: responses.CognitoIdpResponse) -> Any:
    access_token = response._get_param("AccessToken")
    return response._get_region_agnostic_backend()._find_backend_by_access_token(access_token)


def _start_response(self: responses.CognitoIdpResponse) -> ActionResult:
    options = _token_backend(self).start_web_authn_registration(self._get_param("AccessToken"))
    return ActionResult({"CredentialCreationOptions": options})


def _complete_response(self: responses.CognitoIdpResponse) -> EmptyResult:
    _token_backend(self).complete_web_authn_registration(
        self._get_param("AccessToken"), self._get_param("Credential")
    )
    return EmptyResult()


def _list_response(self: responses.CognitoIdpResponse) -> ActionResult:
    return ActionResult(
        _token_backend(self).list_web_authn_credentials(
            self._get_param("AccessToken"),
            self._get_param("MaxResults"),
            self._get_param("NextToken"),
        )
    )


def _delete_response(self: responses.CognitoIdpResponse) -> EmptyResult:
    _token_backend(self).delete_web_authn_credential(
        self._get_param("AccessToken"), self._get_param("CredentialId")
    )
    return EmptyResult()


def install() -> None:
    """Patch moto's Cognito backend and responses (idempotent; after moto_server's own)."""
    backend = models.CognitoIdpBackend
    backend.get_user_pool_mfa_config = get_user_pool_mfa_config  # type: ignore[method-assign]
    backend.start_web_authn_registration = start_web_authn_registration  # type: ignore[attr-defined]
    backend.complete_web_authn_registration = complete_web_authn_registration  # type: ignore[attr-defined]
    backend.list_web_authn_credentials = list_web_authn_credentials  # type: ignore[attr-defined]
    backend.delete_web_authn_credential = delete_web_authn_credential  # type: ignore[attr-defined]
    backend.initiate_auth = initiate_auth  # type: ignore[method-assign]
    backend.admin_initiate_auth = admin_initiate_auth  # type: ignore[method-assign]
    backend.respond_to_auth_challenge = respond_to_auth_challenge  # type: ignore[method-assign]
    response = responses.CognitoIdpResponse
    response.set_user_pool_mfa_config = _set_user_pool_mfa_config  # type: ignore[method-assign]
    response.start_web_authn_registration = _start_response  # type: ignore[attr-defined]
    response.complete_web_authn_registration = _complete_response  # type: ignore[attr-defined]
    response.list_web_authn_credentials = _list_response  # type: ignore[attr-defined]
    response.delete_web_authn_credential = _delete_response  # type: ignore[attr-defined]
