"""Amazon Cognito user pool adapter (AWS JSON 1.1 over httpx).

Implements the Cognito Identity Provider API as documented in the "Amazon Cognito user pools
API reference" (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/):
``POST /`` with ``X-Amz-Target: AWSCognitoIdentityProviderService.<Operation>`` and a JSON body.
Public operations (InitiateAuth, GlobalSignOut...) are unsigned; admin operations carry an AWS
Signature Version 4 from botocore's signer. The JWKS comes from
``<endpoint>/<pool id>/.well-known/jwks.json``.

Every method has an explicit timeout, returns a typed result and raises :class:`CognitoError`
(a subclass named after the provider's ``__type``) or :class:`CognitoUnavailable`.
Nothing outside ``api/adapters`` talks to Cognito.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import httpx

from api.adapters.aws import aws_credentials, sigv4_headers
from api.kernel.config import Settings
from api.kernel.http.vendor_budget import within_budget

_TARGET_PREFIX = "AWSCognitoIdentityProviderService."
_CONTENT_TYPE = "application/x-amz-json-1.1"


# ---------------------------------------------------------------------------------------------
# Errors


class CognitoError(Exception):
    """The provider refused the request. ``code`` is Cognito's ``__type``; ``message`` its text."""

    def __init__(self, code: str, message: str, status_code: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status_code = status_code


class NotAuthorizedError(CognitoError):
    """NotAuthorizedException: wrong password, revoked token, disabled user..."""


class UserNotFoundError(CognitoError):
    """UserNotFoundException."""


class UserNotConfirmedError(CognitoError):
    """UserNotConfirmedException."""


class UsernameExistsError(CognitoError):
    """UsernameExistsException."""


class InvalidPasswordError(CognitoError):
    """InvalidPasswordException: the pool's password policy refused the password."""


class CodeMismatchError(CognitoError):
    """CodeMismatchException / ExpiredCodeException: a wrong or stale verification code
    (``code`` tells which); EnableSoftwareTokenMFAException: a wrong authenticator-app code
    when setting it up."""


class NoVerifiedAddressError(CognitoError):
    """ForgotPassword's InvalidParameterException for a user with no verified email or phone
    number: Cognito sends reset codes only to a verified address."""


class TooManyRequestsError(CognitoError):
    """TooManyRequestsException / LimitExceededException."""


class ResourceNotFoundError(CognitoError):
    """ResourceNotFoundException: unknown pool or client (or passkey, for
    DeleteWebAuthnCredential)."""


class PasskeyRefusedError(CognitoError):
    """Cognito refused a passkey registration response (``code`` tells why):
    WebAuthnChallengeNotFoundException (no registration started, or it expired, or it was
    answered already), WebAuthnClientMismatchException (started with another app client's
    token), WebAuthnOriginNotAllowedException (made on an origin that does not align with the
    relying party ID), WebAuthnRelyingPartyMismatchException (made for another relying party),
    WebAuthnCredentialNotSupportedException (an authenticator the pool does not accept, e.g.
    one that does not verify the user when the pool requires it)."""


class PasskeysNotEnabledError(CognitoError):
    """Passkeys cannot be used: WebAuthnNotEnabledException (the pool does not allow them),
    WebAuthnConfigurationMissingException (no relying party ID and no domain); and, with the
    code ``NoPasskeyChallenge``, a passkey sign-in Cognito answered with another challenge
    than WEB_AUTHN (the user has no passkey, or the pool does not offer passkeys first)."""


class OAuthError(Exception):
    """The hosted UI's token endpoint refused a code; ``error`` is its OAuth error code
    (``invalid_grant``, ``invalid_client``...)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


class CognitoUnavailable(Exception):
    """Cognito could not be reached, timed out or answered 5xx; nothing is known to have changed."""


_ERRORS: dict[str, type[CognitoError]] = {
    "NotAuthorizedException": NotAuthorizedError,
    "UserNotFoundException": UserNotFoundError,
    "UserNotConfirmedException": UserNotConfirmedError,
    "UsernameExistsException": UsernameExistsError,
    "InvalidPasswordException": InvalidPasswordError,
    "CodeMismatchException": CodeMismatchError,
    "ExpiredCodeException": CodeMismatchError,
    "EnableSoftwareTokenMFAException": CodeMismatchError,
    "TooManyRequestsException": TooManyRequestsError,
    "LimitExceededException": TooManyRequestsError,
    "ResourceNotFoundException": ResourceNotFoundError,
    "WebAuthnChallengeNotFoundException": PasskeyRefusedError,
    "WebAuthnClientMismatchException": PasskeyRefusedError,
    "WebAuthnOriginNotAllowedException": PasskeyRefusedError,
    "WebAuthnRelyingPartyMismatchException": PasskeyRefusedError,
    "WebAuthnCredentialNotSupportedException": PasskeyRefusedError,
    "WebAuthnNotEnabledException": PasskeysNotEnabledError,
    "WebAuthnConfigurationMissingException": PasskeysNotEnabledError,
}


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class Tokens:
    """Tokens of a successful authentication. ``expires_in`` is in seconds.

    ``refresh_token`` is None on a refresh (Cognito does not rotate it by default).
    """

    access_token: str
    id_token: str
    refresh_token: str | None
    expires_in: int


@dataclass(frozen=True, slots=True)
class Challenge:
    """An authentication challenge (e.g. NEW_PASSWORD_REQUIRED) and its opaque session."""

    name: str
    session: str
    parameters: dict[str, str]


@dataclass(frozen=True, slots=True)
class AuthResult:
    """InitiateAuth / RespondToAuthChallenge outcome: exactly one of tokens or challenge."""

    tokens: Tokens | None
    challenge: Challenge | None


@dataclass(frozen=True, slots=True)
class CognitoUser:
    """A pool user: its immutable username, ``sub`` and attributes."""

    username: str
    sub: str
    attributes: dict[str, str]
    status: str


@dataclass(frozen=True, slots=True)
class CodeDelivery:
    """Where a verification code was sent (``CodeDeliveryDetails`` of ForgotPassword and
    GetUserAttributeVerificationCode)."""

    destination: str
    delivery_medium: str
    attribute_name: str


@dataclass(frozen=True, slots=True)
class PasskeyChallenge:
    """The WEB_AUTHN challenge of a passkey sign-in: ``options``, the browser's
    PublicKeyCredentialRequestOptions as JSON (``CREDENTIAL_REQUEST_OPTIONS``: ``challenge``,
    ``rpId``, ``allowCredentials``, ``userVerification``, ``timeout``), for
    ``PublicKeyCredential.parseRequestOptionsFromJSON``; ``session``, the opaque session to
    answer it in."""

    session: str
    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Passkey:
    """A registered passkey (Cognito's WebAuthnCredentialDescription): ``id`` (base64url, as
    browsers show credential IDs), ``name`` (Cognito's FriendlyCredentialName),
    ``relying_party_id``, ``attachment`` (``platform``, ``cross-platform`` or None),
    ``transports`` (``internal``, ``usb``, ``hybrid``...), ``created_at`` (UTC)."""

    id: str
    name: str
    relying_party_id: str
    attachment: str | None
    transports: tuple[str, ...]
    created_at: datetime


def _passkey(item: dict[str, Any]) -> Passkey:
    return Passkey(
        id=str(item["CredentialId"]),
        name=str(item.get("FriendlyCredentialName", "")),
        relying_party_id=str(item.get("RelyingPartyId", "")),
        attachment=item.get("AuthenticatorAttachment"),
        transports=tuple(item.get("AuthenticatorTransports") or ()),
        created_at=datetime.fromtimestamp(float(item["CreatedAt"]), UTC),
    )


# A passkey sign-in's refresh token, as the adapter hands it out: marked as the passkey
# client's, with the username its SECRET_HASH needs (Cognito's refresh tokens are JWEs, of
# base64url parts and dots, so the marks cannot clash).
_PASSKEY_REFRESH = "passkey:"


def _wrap_passkey_refresh(username: str, refresh_token: str) -> str:
    name = base64.urlsafe_b64encode(username.encode()).decode().rstrip("=")
    return f"{_PASSKEY_REFRESH}{name}:{refresh_token}"


def _unwrap_passkey_refresh(refresh_token: str) -> tuple[str, str] | None:
    """``(username, Cognito's refresh token)`` of a passkey sign-in's, else None."""
    if not refresh_token.startswith(_PASSKEY_REFRESH):
        return None
    name, _, token = refresh_token[len(_PASSKEY_REFRESH) :].partition(":")
    try:
        username = base64.urlsafe_b64decode(name + "=" * (-len(name) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    return username, token


def _tokens(result: dict[str, Any]) -> Tokens:
    return Tokens(
        access_token=result["AccessToken"],
        id_token=result["IdToken"],
        refresh_token=result.get("RefreshToken"),
        expires_in=int(result.get("ExpiresIn", 3600)),
    )


def _auth_result(body: dict[str, Any]) -> AuthResult:
    if "AuthenticationResult" in body:
        return AuthResult(tokens=_tokens(body["AuthenticationResult"]), challenge=None)
    return AuthResult(
        tokens=None,
        challenge=Challenge(
            name=body.get("ChallengeName", ""),
            session=body.get("Session", ""),
            parameters=dict(body.get("ChallengeParameters") or {}),
        ),
    )


def _code_delivery(body: dict[str, Any]) -> CodeDelivery | None:
    details = body.get("CodeDeliveryDetails")
    if not details:
        return None
    return CodeDelivery(
        destination=str(details.get("Destination", "")),
        delivery_medium=str(details.get("DeliveryMedium", "")),
        attribute_name=str(details.get("AttributeName", "")),
    )


def _attributes(items: list[dict[str, str]] | None) -> dict[str, str]:
    return {a["Name"]: a["Value"] for a in items or []}


def _attribute_list(attributes: dict[str, str]) -> list[dict[str, str]]:
    return [{"Name": k, "Value": v} for k, v in attributes.items()]


# ---------------------------------------------------------------------------------------------
# Client


class CognitoClient:
    """Async client for one user pool and app client.

    Build once in the app lifespan and :meth:`aclose` on shutdown.

    Args:
        base_url: API endpoint, e.g. ``https://cognito-idp.us-east-1.amazonaws.com``.
        region: AWS region used for SigV4.
        user_pool_id / client_id: the pool and its public app client (no secret).
        passkey_client_id / passkey_client_secret: the pool's confidential app client of
            passkey sign-in (``USER_AUTH``; docs/users/passkeys.md); empty: no passkey
            sign-in.
        access_key_id / secret_access_key: credentials for admin calls; empty uses botocore's
            default chain (environment, instance role...).
        hosted_ui_url: the hosted UI domain (``https://auth.example.com``) whose
            ``/oauth2/token`` endpoint exchanges authorization codes; empty disables it.
        timeout_s: connect/read/write timeout of every call, in seconds.
        event_hooks: httpx event hooks (the dev stack's mailbox records messages this way).
    """

    def __init__(
        self,
        *,
        base_url: str,
        region: str,
        user_pool_id: str,
        client_id: str,
        passkey_client_id: str = "",
        passkey_client_secret: str = "",
        access_key_id: str = "",
        secret_access_key: str = "",
        hosted_ui_url: str = "",
        timeout_s: float = 5.0,
        event_hooks: dict[str, list[Any]] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.region = region
        self.user_pool_id = user_pool_id
        self.client_id = client_id
        self.passkey_client_id = passkey_client_id
        self._passkey_client_secret = passkey_client_secret
        self.hosted_ui_url = hosted_ui_url.rstrip("/")
        self._credentials = aws_credentials(access_key_id, secret_access_key)
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s),
            event_hooks=event_hooks or {},
            transport=transport,
        )

    @classmethod
    def from_settings(
        cls, settings: Settings, *, event_hooks: dict[str, list[Any]] | None = None
    ) -> CognitoClient:
        """The client for the pool, app client, credentials and timeout of ``settings``."""
        return cls(
            base_url=settings.cognito.base_url,
            region=settings.cognito.region,
            user_pool_id=settings.cognito.user_pool_id,
            client_id=settings.cognito.client_id,
            passkey_client_id=settings.cognito.passkey_client_id,
            passkey_client_secret=settings.cognito.passkey_client_secret.get_secret_value(),
            access_key_id=settings.cognito.access_key_id,
            secret_access_key=settings.cognito.secret_access_key.get_secret_value(),
            hosted_ui_url=settings.cognito.hosted_ui_url,
            timeout_s=settings.cognito.timeout_s,
            event_hooks=event_hooks,
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    def _signed_headers(self, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        signed = sigv4_headers(
            self._credentials,
            service="cognito-idp",
            region=self.region,
            url=self.base_url + "/",
            body=body,
            headers=headers,
        )
        if signed is None:
            raise CognitoUnavailable("No AWS credentials for Cognito admin calls")
        return signed

    async def call(self, operation: str, payload: dict[str, Any], *, signed: bool) -> Any:
        """Call one Cognito operation and return its decoded JSON body.

        Raises:
            CognitoError: the provider answered 4xx (subclass by ``__type``).
            CognitoUnavailable: network failure, timeout or 5xx.
        """
        body = json.dumps(payload).encode()
        headers = {"Content-Type": _CONTENT_TYPE, "X-Amz-Target": _TARGET_PREFIX + operation}
        if signed:
            headers = self._signed_headers(body, headers)
        try:
            async with within_budget():
                response = await self._http.post(self.base_url + "/", content=body, headers=headers)
        except (httpx.HTTPError, TimeoutError) as exc:
            raise CognitoUnavailable(f"{operation}: {exc!r}") from exc
        if response.status_code >= 500:
            raise CognitoUnavailable(f"{operation}: HTTP {response.status_code}")
        data = response.json() if response.content else {}
        if response.status_code >= 400:
            raw_type = str(data.get("__type", "UnknownError"))
            code = raw_type.rsplit("#", 1)[-1]
            message = str(data.get("message") or data.get("Message") or code)
            raise _ERRORS.get(code, CognitoError)(code, message, response.status_code)
        return data

    # --- public operations ---------------------------------------------------------------

    async def password_auth(self, username: str, password: str) -> AuthResult:
        """AdminInitiateAuth with ADMIN_USER_PASSWORD_AUTH (SigV4): password sign-in runs on
        the server only, and the app client allows no password flow of its own (README
        "User pool settings").

        Returns tokens, or a challenge such as NEW_PASSWORD_REQUIRED (answer it with
        :meth:`respond_new_password`).
        Raises: NotAuthorizedError, UserNotFoundError, UserNotConfirmedError, CognitoUnavailable.
        """
        body = await self.call(
            "AdminInitiateAuth",
            {
                "UserPoolId": self.user_pool_id,
                "ClientId": self.client_id,
                "AuthFlow": "ADMIN_USER_PASSWORD_AUTH",
                "AuthParameters": {"USERNAME": username, "PASSWORD": password},
            },
            signed=True,
        )
        return _auth_result(body)

    async def refresh(self, refresh_token: str) -> Tokens:
        """InitiateAuth with REFRESH_TOKEN_AUTH at the app client that issued the token (a
        passkey sign-in's, as :meth:`passkey_auth_answer` hands it out, at the passkey client
        with its ``SECRET_HASH``); the result has no new refresh token.

        Raises: NotAuthorizedError (revoked or expired refresh token), CognitoUnavailable.
        """
        parameters = {"REFRESH_TOKEN": refresh_token}
        client_id = self.client_id
        passkey = _unwrap_passkey_refresh(refresh_token)
        if passkey is not None:
            username, parameters["REFRESH_TOKEN"] = passkey
            client_id = self.passkey_client_id
            parameters["SECRET_HASH"] = self.secret_hash(username)
        body = await self.call(
            "InitiateAuth",
            {"AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": client_id, "AuthParameters": parameters},
            signed=False,
        )
        result = _auth_result(body)
        if result.tokens is None:
            raise CognitoError("UnexpectedChallenge", "Refresh returned a challenge")
        return result.tokens

    async def revoke_token(self, refresh_token: str) -> None:
        """RevokeToken: end one refresh token of this app client (one browser's session),
        and with it the access tokens minted from it as far as Cognito's own APIs are
        concerned. Raises: NotAuthorizedError, CognitoUnavailable."""
        payload = {"Token": refresh_token, "ClientId": self.client_id}
        passkey = _unwrap_passkey_refresh(refresh_token)
        if passkey is not None:  # a passkey sign-in's, at its confidential client
            payload = {
                "Token": passkey[1],
                "ClientId": self.passkey_client_id,
                "ClientSecret": self._passkey_client_secret,
            }
        await self.call("RevokeToken", payload, signed=False)

    async def forgot_password(self, username: str) -> CodeDelivery | None:
        """ForgotPassword: Cognito emails a verification code.

        Returns where it went, or None when the answer has no ``CodeDeliveryDetails``.
        Raises: NoVerifiedAddressError (the user's email is not verified), UserNotFoundError,
        NotAuthorizedError, CognitoError, CognitoUnavailable.
        """
        try:
            body = await self.call(
                "ForgotPassword", {"ClientId": self.client_id, "Username": username}, signed=False
            )
        except CognitoError as exc:
            if exc.code == "InvalidParameterException" and "verified" in exc.message:
                raise NoVerifiedAddressError(exc.code, exc.message, exc.status_code) from exc
            raise
        return _code_delivery(body)

    async def confirm_forgot_password(self, username: str, code: str, password: str) -> None:
        """ConfirmForgotPassword: set a new password with the emailed code.

        Raises: CodeMismatchError, InvalidPasswordError, UserNotFoundError, CognitoError,
        CognitoUnavailable.
        """
        await self.call(
            "ConfirmForgotPassword",
            {
                "ClientId": self.client_id,
                "Username": username,
                "ConfirmationCode": code,
                "Password": password,
            },
            signed=False,
        )

    async def get_email_verification_code(self, access_token: str) -> CodeDelivery | None:
        """GetUserAttributeVerificationCode for ``email``, authorised by the signed-in user's
        access token (it carries ``aws.cognito.signin.user.admin``, as every token of the admin
        password sign-in does; there is no admin form of this call): Cognito emails the user
        a code for VerifyUserAttribute.

        Returns where it went, or None when the answer has no ``CodeDeliveryDetails``.
        Raises: NotAuthorizedError (a revoked or foreign token), TooManyRequestsError,
        CognitoError, CognitoUnavailable.
        """
        body = await self.call(
            "GetUserAttributeVerificationCode",
            {"AccessToken": access_token, "AttributeName": "email"},
            signed=False,
        )
        return _code_delivery(body)

    async def verify_email(self, access_token: str, code: str) -> None:
        """VerifyUserAttribute for ``email`` with the code Cognito emailed: Cognito then sets
        the user's ``email_verified`` true.

        Raises: CodeMismatchError (``code`` CodeMismatchException: wrong;
        ExpiredCodeException: stale), NotAuthorizedError, TooManyRequestsError, CognitoError,
        CognitoUnavailable.
        """
        await self.call(
            "VerifyUserAttribute",
            {"AccessToken": access_token, "AttributeName": "email", "Code": code},
            signed=False,
        )

    async def respond_new_password(
        self, username: str, session: str, password: str, attributes: dict[str, str]
    ) -> AuthResult:
        """AdminRespondToAuthChallenge NEW_PASSWORD_REQUIRED (the challenge of
        :meth:`password_auth`) with the new password and the
        ``userAttributes.<name>`` answers (SPEC 3: given_name, family_name).

        Raises: NotAuthorizedError (stale session), InvalidPasswordError, CognitoError,
        CognitoUnavailable.
        """
        responses = {"USERNAME": username, "NEW_PASSWORD": password}
        responses.update({f"userAttributes.{k}": v for k, v in attributes.items()})
        body = await self.call(
            "AdminRespondToAuthChallenge",
            {
                "UserPoolId": self.user_pool_id,
                "ClientId": self.client_id,
                "ChallengeName": "NEW_PASSWORD_REQUIRED",
                "Session": session,
                "ChallengeResponses": responses,
            },
            signed=True,
        )
        return _auth_result(body)

    async def respond_software_token_mfa(
        self, username: str, session: str, code: str
    ) -> AuthResult:
        """AdminRespondToAuthChallenge SOFTWARE_TOKEN_MFA (the challenge of
        :meth:`password_auth` for a user with an authenticator app) with its 6-digit code.

        Raises: CodeMismatchError (a wrong code), NotAuthorizedError (an expired or used
        session), CognitoError, CognitoUnavailable.
        """
        body = await self.call(
            "AdminRespondToAuthChallenge",
            {
                "UserPoolId": self.user_pool_id,
                "ClientId": self.client_id,
                "ChallengeName": "SOFTWARE_TOKEN_MFA",
                "Session": session,
                "ChallengeResponses": {"USERNAME": username, "SOFTWARE_TOKEN_MFA_CODE": code},
            },
            signed=True,
        )
        return _auth_result(body)

    async def associate_software_token(self, access_token: str) -> str:
        """AssociateSoftwareToken, authorised by the signed-in user's access token (there is
        no admin form): Cognito makes a new TOTP secret for the user and returns it (base32,
        for the authenticator app). It replaces the current one only once
        :meth:`verify_software_token` accepts a code of it.

        Raises: NotAuthorizedError, CognitoError (SoftwareTokenMFANotFoundException: the pool
        does not allow software token MFA), CognitoUnavailable.
        """
        body = await self.call(
            "AssociateSoftwareToken", {"AccessToken": access_token}, signed=False
        )
        return str(body["SecretCode"])

    async def verify_software_token(self, access_token: str, code: str, device_name: str) -> None:
        """VerifySoftwareToken: a code of the secret :meth:`associate_software_token` gave,
        which registers it as the user's authenticator (the previous one stops working).

        Raises: CodeMismatchError (a wrong code), NotAuthorizedError, CognitoError,
        CognitoUnavailable.
        """
        body = await self.call(
            "VerifySoftwareToken",
            {"AccessToken": access_token, "UserCode": code, "FriendlyDeviceName": device_name},
            signed=False,
        )
        if body.get("Status") != "SUCCESS":
            raise CodeMismatchError("CodeMismatchException", "Code mismatch")

    async def admin_set_software_token_mfa(self, username: str, *, enabled: bool) -> None:
        """AdminSetUserMFAPreference: turn the user's authenticator-app MFA on (and
        preferred: every password sign-in then answers SOFTWARE_TOKEN_MFA) or off.

        Raises: UserNotFoundError, CognitoError (InvalidParameterException: no verified
        authenticator to turn on), CognitoUnavailable.
        """
        await self.call(
            "AdminSetUserMFAPreference",
            {
                "UserPoolId": self.user_pool_id,
                "Username": username,
                "SoftwareTokenMfaSettings": {"Enabled": enabled, "PreferredMfa": enabled},
            },
            signed=True,
        )

    # --- passkeys (WebAuthn) -------------------------------------------------------------

    async def start_web_authn_registration(self, access_token: str) -> dict[str, Any]:
        """StartWebAuthnRegistration, authorised by the signed-in user's access token (with
        ``aws.cognito.signin.user.admin``; there is no admin form): the browser's
        PublicKeyCredentialCreationOptions as JSON (Cognito's ``CredentialCreationOptions``:
        ``rp``, ``user``, ``challenge``, ``pubKeyCredParams``, ``excludeCredentials``,
        ``authenticatorSelection``, ``timeout``...), for
        ``PublicKeyCredential.parseCreationOptionsFromJSON``. Cognito keeps the challenge for
        :meth:`complete_web_authn_registration` (Amazon Cognito API reference,
        StartWebAuthnRegistration).

        Raises: PasskeysNotEnabledError, NotAuthorizedError, TooManyRequestsError (also
        LimitExceededException), CognitoError, CognitoUnavailable.
        """
        body = await self.call(
            "StartWebAuthnRegistration", {"AccessToken": access_token}, signed=False
        )
        options: dict[str, Any] = body["CredentialCreationOptions"]
        return options

    async def complete_web_authn_registration(
        self, access_token: str, credential: dict[str, Any]
    ) -> None:
        """CompleteWebAuthnRegistration: ``credential`` is the browser's
        RegistrationResponseJSON (``PublicKeyCredential.toJSON()`` of
        ``navigator.credentials.create``); Cognito verifies it against the challenge of
        :meth:`start_web_authn_registration` and registers the passkey (Amazon Cognito API
        reference, CompleteWebAuthnRegistration).

        Raises: PasskeyRefusedError (``code`` says why), PasskeysNotEnabledError,
        NotAuthorizedError, CognitoError (InvalidParameterException: a response that does not
        verify otherwise), CognitoUnavailable.
        """
        await self.call(
            "CompleteWebAuthnRegistration",
            {"AccessToken": access_token, "Credential": credential},
            signed=False,
        )

    async def list_web_authn_credentials(self, access_token: str) -> list[Passkey]:
        """ListWebAuthnCredentials: every passkey of the signed-in user, 20 a page (the
        most the operation returns) until Cognito gives no NextToken (Amazon Cognito API
        reference, ListWebAuthnCredentials).

        Raises: NotAuthorizedError, TooManyRequestsError, CognitoUnavailable.
        """
        passkeys: list[Passkey] = []
        payload: dict[str, Any] = {"AccessToken": access_token, "MaxResults": 20}
        while True:
            body = await self.call("ListWebAuthnCredentials", payload, signed=False)
            passkeys.extend(_passkey(item) for item in body.get("Credentials") or [])
            if not body.get("NextToken"):
                return passkeys
            payload["NextToken"] = body["NextToken"]

    async def delete_web_authn_credential(self, access_token: str, credential_id: str) -> None:
        """DeleteWebAuthnCredential: forget one of the signed-in user's passkeys (its ``id``);
        it no longer signs in (Amazon Cognito API reference, DeleteWebAuthnCredential).

        Raises: ResourceNotFoundError (not one of the user's passkeys), NotAuthorizedError,
        CognitoUnavailable.
        """
        await self.call(
            "DeleteWebAuthnCredential",
            {"AccessToken": access_token, "CredentialId": credential_id},
            signed=False,
        )

    def secret_hash(self, username: str) -> str:
        """The ``SECRET_HASH`` of ``username`` at the passkey client: Base64 of HMAC-SHA256
        over the username and the client id, keyed with the client secret (Amazon Cognito
        developer guide, "Computing secret hash values")."""
        digest = hmac.new(
            self._passkey_client_secret.encode(),
            (username + self.passkey_client_id).encode(),
            hashlib.sha256,
        ).digest()
        return base64.b64encode(digest).decode()

    def _passkey_client(self) -> str:
        if not self.passkey_client_id:
            raise PasskeysNotEnabledError(
                "PasskeyClientMissing", "No passkey app client is configured"
            )
        return self.passkey_client_id

    async def passkey_auth_start(self, username: str) -> PasskeyChallenge:
        """AdminInitiateAuth (SigV4) with the choice-based flow ``USER_AUTH`` and
        ``PREFERRED_CHALLENGE`` ``WEB_AUTHN`` at the passkey client, with its ``SECRET_HASH``:
        the passkey challenge of ``username`` (Cognito requires the username: there is no
        sign-in with a discoverable credential alone). The client must allow
        ``ALLOW_USER_AUTH`` and the pool ``WEB_AUTHN`` first (Amazon Cognito API reference,
        AdminInitiateAuth; "Manage authentication methods in AWS SDKs"). The public client
        never allows ``USER_AUTH``: it would sign in with a password, unsigned.

        Raises: PasskeysNotEnabledError (``NoPasskeyChallenge``: Cognito offered another
        challenge, e.g. SELECT_CHALLENGE for a user without a passkey;
        ``PasskeyClientMissing``: no passkey client configured), UserNotFoundError,
        NotAuthorizedError, CognitoError (InvalidParameterException: the client does not
        allow USER_AUTH), CognitoUnavailable.
        """
        body = await self.call(
            "AdminInitiateAuth",
            {
                "UserPoolId": self.user_pool_id,
                "ClientId": self._passkey_client(),
                "AuthFlow": "USER_AUTH",
                "AuthParameters": {
                    "USERNAME": username,
                    "PREFERRED_CHALLENGE": "WEB_AUTHN",
                    "SECRET_HASH": self.secret_hash(username),
                },
            },
            signed=True,
        )
        parameters = body.get("ChallengeParameters") or {}
        if body.get("ChallengeName") != "WEB_AUTHN" or not body.get("Session"):
            raise PasskeysNotEnabledError(
                "NoPasskeyChallenge",
                f"Cognito answered {body.get('ChallengeName') or 'tokens'}, not WEB_AUTHN",
            )
        return PasskeyChallenge(
            session=str(body["Session"]),
            options=json.loads(parameters["CREDENTIAL_REQUEST_OPTIONS"]),
        )

    async def passkey_auth_answer(
        self, username: str, session: str, credential: dict[str, Any]
    ) -> AuthResult:
        """AdminRespondToAuthChallenge WEB_AUTHN (SigV4) at the passkey client:
        ``credential`` is the browser's AuthenticationResponseJSON
        (``PublicKeyCredential.toJSON()`` of ``navigator.credentials.get`` with
        :class:`PasskeyChallenge` options), sent as ``CREDENTIAL`` (a JSON string) with
        ``USERNAME`` and ``SECRET_HASH``. A session takes one answer.

        Returns tokens (or a further challenge, as :meth:`password_auth` may). The refresh
        token is handed out marked as the passkey client's (with the username its
        ``SECRET_HASH`` needs), for :meth:`refresh` and :meth:`revoke_token`; keep it whole.
        Raises: NotAuthorizedError (the assertion does not verify: signature, challenge,
        origin, relying party, a sign count that did not increase, an unknown or deleted
        passkey; or the session expired or was used), PasskeysNotEnabledError, CognitoError,
        CognitoUnavailable.
        """
        body = await self.call(
            "AdminRespondToAuthChallenge",
            {
                "UserPoolId": self.user_pool_id,
                "ClientId": self._passkey_client(),
                "ChallengeName": "WEB_AUTHN",
                "Session": session,
                "ChallengeResponses": {
                    "USERNAME": username,
                    "CREDENTIAL": json.dumps(credential, separators=(",", ":")),
                    "SECRET_HASH": self.secret_hash(username),
                },
            },
            signed=True,
        )
        result = _auth_result(body)
        if result.tokens is not None and result.tokens.refresh_token:
            wrapped = _wrap_passkey_refresh(username, result.tokens.refresh_token)
            result = replace(result, tokens=replace(result.tokens, refresh_token=wrapped))
        return result

    def authorize_url(
        self,
        redirect_uri: str,
        state: str,
        code_challenge: str,
        *,
        identity_provider: str = "",
        idp_identifier: str = "",
    ) -> str:
        """The hosted UI's authorize page for one sign-in (SPEC 2 /oauth/<provider>/login;
        Cognito "Authorize endpoint"): response type code, the client id, the redirect, the
        identity provider (by name, ``identity_provider``; or by one of its identifiers,
        ``idp_identifier``: an email domain of a SAML connection), ``state`` and a PKCE S256
        ``code_challenge`` (RFC 7636).

        Raises: CognitoUnavailable when no hosted UI is configured.
        """
        if not self.hosted_ui_url:
            raise CognitoUnavailable("No hosted UI is configured")
        provider = (
            {"idp_identifier": idp_identifier}
            if idp_identifier
            else {"identity_provider": identity_provider}
        )
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                **provider,
                "state": state,
                "code_challenge": code_challenge,
                "code_challenge_method": "S256",
            }
        )
        return f"{self.hosted_ui_url}/oauth2/authorize?{query}"

    async def exchange_code(self, code: str, redirect_uri: str, code_verifier: str) -> Tokens:
        """The hosted UI's token endpoint: ``POST {hosted_ui_url}/oauth2/token``, form-encoded
        grant_type=authorization_code, code, client_id, redirect_uri and the PKCE
        code_verifier (SPEC 7 "Token exchange"; Cognito "Token endpoint" docs; RFC 7636 4.5).

        Raises: OAuthError (the endpoint's ``error``, e.g. ``invalid_grant``),
        CognitoUnavailable.
        """
        if not self.hosted_ui_url:
            raise CognitoUnavailable("No hosted UI is configured")
        try:
            async with within_budget():
                response = await self._http.post(
                    self.hosted_ui_url + "/oauth2/token",
                    data={
                        "grant_type": "authorization_code",
                        "code": code,
                        "client_id": self.client_id,
                        "redirect_uri": redirect_uri,
                        "code_verifier": code_verifier,
                    },
                )
        except (httpx.HTTPError, TimeoutError) as exc:
            raise CognitoUnavailable(f"oauth2/token: {exc!r}") from exc
        if response.status_code >= 500:
            raise CognitoUnavailable(f"oauth2/token: HTTP {response.status_code}")
        try:
            data = response.json()
        except ValueError as exc:
            raise OAuthError("invalid_response") from exc
        if response.status_code >= 400 or "access_token" not in data:
            raise OAuthError(str(data.get("error", "invalid_request")))
        return Tokens(
            access_token=data["access_token"],
            id_token=data.get("id_token", ""),
            refresh_token=data.get("refresh_token"),
            expires_in=int(data.get("expires_in", 3600)),
        )

    async def fetch_jwks(self) -> dict[str, Any]:
        """GET the pool's JSON Web Key Set (``{"keys": [...]}``).

        Raises: CognitoUnavailable.
        """
        url = f"{self.base_url}/{self.user_pool_id}/.well-known/jwks.json"
        try:
            async with within_budget():
                response = await self._http.get(url)
            response.raise_for_status()
        except (httpx.HTTPError, TimeoutError) as exc:
            raise CognitoUnavailable(f"JWKS: {exc!r}") from exc
        jwks: dict[str, Any] = response.json()
        return jwks

    # --- admin operations (SigV4) --------------------------------------------------------

    async def admin_create_user(
        self,
        username: str,
        attributes: dict[str, str],
        *,
        temporary_password: str | None = None,
        suppress_message: bool = False,
    ) -> CognitoUser:
        """AdminCreateUser. Cognito emails the temporary password unless suppressed.

        Raises: UsernameExistsError, InvalidPasswordError, CognitoUnavailable.
        """
        payload: dict[str, Any] = {
            "UserPoolId": self.user_pool_id,
            "Username": username,
            "UserAttributes": _attribute_list(attributes),
            "DesiredDeliveryMediums": ["EMAIL"],
        }
        if temporary_password is not None:
            payload["TemporaryPassword"] = temporary_password
        if suppress_message:
            payload["MessageAction"] = "SUPPRESS"
        user = (await self.call("AdminCreateUser", payload, signed=True))["User"]
        attrs = _attributes(user.get("Attributes"))
        return CognitoUser(
            username=user["Username"],
            sub=attrs.get("sub", ""),
            attributes=attrs,
            status=user.get("UserStatus", ""),
        )

    async def admin_resend_invitation(
        self, username: str, attributes: dict[str, str], temporary_password: str
    ) -> None:
        """AdminCreateUser with MessageAction RESEND and a new TemporaryPassword: Cognito
        emails the invitation again with the new password, which replaces the previous one,
        and restarts its validity (Amazon Cognito API reference, AdminCreateUser).

        Raises: UserNotFoundError, InvalidPasswordError, CognitoUnavailable.
        """
        await self.call(
            "AdminCreateUser",
            {
                "UserPoolId": self.user_pool_id,
                "Username": username,
                "UserAttributes": _attribute_list(attributes),
                "DesiredDeliveryMediums": ["EMAIL"],
                "TemporaryPassword": temporary_password,
                "MessageAction": "RESEND",
            },
            signed=True,
        )

    async def admin_set_user_password(
        self, username: str, password: str, *, permanent: bool
    ) -> None:
        """AdminSetUserPassword. Raises: UserNotFoundError, InvalidPasswordError."""
        await self.call(
            "AdminSetUserPassword",
            {
                "UserPoolId": self.user_pool_id,
                "Username": username,
                "Password": password,
                "Permanent": permanent,
            },
            signed=True,
        )

    async def admin_get_user(self, username: str) -> CognitoUser:
        """AdminGetUser. Raises: UserNotFoundError."""
        body = await self.call(
            "AdminGetUser", {"UserPoolId": self.user_pool_id, "Username": username}, signed=True
        )
        attrs = _attributes(body.get("UserAttributes"))
        return CognitoUser(
            username=body["Username"],
            sub=attrs.get("sub", ""),
            attributes=attrs,
            status=body.get("UserStatus", ""),
        )

    async def admin_update_user_attributes(self, username: str, attributes: dict[str, str]) -> None:
        """AdminUpdateUserAttributes (the dev stack's hosted-UI stand-in refreshes a federated
        user's mapped attributes with it). Raises: UserNotFoundError, CognitoError."""
        await self.call(
            "AdminUpdateUserAttributes",
            {
                "UserPoolId": self.user_pool_id,
                "Username": username,
                "UserAttributes": _attribute_list(attributes),
            },
            signed=True,
        )

    async def admin_delete_user(self, username: str) -> None:
        """AdminDeleteUser. Raises: UserNotFoundError."""
        await self.call(
            "AdminDeleteUser",
            {"UserPoolId": self.user_pool_id, "Username": username},
            signed=True,
        )

    async def admin_user_global_sign_out(self, username: str) -> None:
        """AdminUserGlobalSignOut: revoke every refresh token of the user (all browsers).
        Raises: UserNotFoundError, CognitoUnavailable."""
        await self.call(
            "AdminUserGlobalSignOut",
            {"UserPoolId": self.user_pool_id, "Username": username},
            signed=True,
        )

    async def describe_app_client(self, client_id: str | None = None) -> dict[str, Any]:
        """DescribeUserPoolClient of the console's app client (or of ``client_id``, e.g. the
        passkey client): its ``UserPoolClient`` object (``ExplicitAuthFlows``,
        ``AllowedOAuthScopes``, ``WriteAttributes``, ``ClientSecret``...).
        Raises: ResourceNotFoundError, CognitoUnavailable."""
        body = await self.call(
            "DescribeUserPoolClient",
            {"UserPoolId": self.user_pool_id, "ClientId": client_id or self.client_id},
            signed=True,
        )
        client: dict[str, Any] = body["UserPoolClient"]
        return client

    # --- identity providers and the app client (SAML connections) -------------------------

    async def create_identity_provider(self, provider: IdentityProvider) -> None:
        """CreateIdentityProvider of type SAML (SigV4): ``ProviderDetails.MetadataFile`` is the
        identity provider's metadata document, ``IdpIdentifiers`` the email domains that lead
        to it, ``AttributeMapping`` pool attribute -> SAML attribute name (Amazon Cognito API
        reference, CreateIdentityProvider; "Adding SAML identity providers to a user pool").

        Raises: CognitoError (DuplicateProviderException, InvalidParameterException for
        metadata Cognito refuses or an identifier another provider has), CognitoUnavailable.
        """
        await self.call("CreateIdentityProvider", provider.request(self.user_pool_id), signed=True)

    async def update_identity_provider(self, provider: IdentityProvider) -> None:
        """UpdateIdentityProvider (SigV4) with the provider's metadata, identifiers and
        attribute mapping (each replaces what Cognito had).

        Raises: ResourceNotFoundError, CognitoError, CognitoUnavailable.
        """
        request = provider.request(self.user_pool_id)
        del request["ProviderType"]
        await self.call("UpdateIdentityProvider", request, signed=True)

    async def delete_identity_provider(self, name: str) -> None:
        """DeleteIdentityProvider (SigV4). Raises: ResourceNotFoundError, CognitoError,
        CognitoUnavailable."""
        await self.call(
            "DeleteIdentityProvider",
            {"UserPoolId": self.user_pool_id, "ProviderName": name},
            signed=True,
        )

    async def describe_identity_provider(self, name: str) -> dict[str, Any]:
        """DescribeIdentityProvider (SigV4): its ``IdentityProvider`` object (``ProviderDetails``,
        ``IdpIdentifiers``, ``AttributeMapping``...). Raises: ResourceNotFoundError,
        CognitoUnavailable."""
        body = await self.call(
            "DescribeIdentityProvider",
            {"UserPoolId": self.user_pool_id, "ProviderName": name},
            signed=True,
        )
        provider: dict[str, Any] = body["IdentityProvider"]
        return provider

    async def get_signing_certificate(self) -> str:
        """GetSigningCertificate (SigV4): the x.509 certificate the pool signs SAML sign-in
        requests with (those of identity providers with ``RequestSigningAlgorithm``), as
        Cognito returns it (base64 DER; a PEM is taken too). Cognito issues a new one every
        year and signs with the newest (Amazon Cognito API reference, GetSigningCertificate;
        "SAML signing and encryption").

        Raises: ResourceNotFoundError, CognitoError, CognitoUnavailable.
        """
        body = await self.call(
            "GetSigningCertificate", {"UserPoolId": self.user_pool_id}, signed=True
        )
        return str(body.get("Certificate") or "")

    async def list_identity_providers(self) -> list[str]:
        """ListIdentityProviders (SigV4): the names of every identity provider of the pool.
        Raises: CognitoUnavailable."""
        names: list[str] = []
        payload: dict[str, Any] = {"UserPoolId": self.user_pool_id, "MaxResults": 60}
        while True:
            body = await self.call("ListIdentityProviders", payload, signed=True)
            names.extend(p["ProviderName"] for p in body.get("Providers", []))
            if not body.get("NextToken"):
                return names
            payload["NextToken"] = body["NextToken"]

    async def update_app_client(self, client: dict[str, Any]) -> None:
        """UpdateUserPoolClient (SigV4) with ``client``, a DescribeUserPoolClient
        ``UserPoolClient`` object (changed by the caller). Cognito resets every setting the
        request leaves out to its default, so each updatable setting the description holds is
        sent back (Amazon Cognito API reference, UpdateUserPoolClient).

        Raises: ResourceNotFoundError, CognitoError (InvalidParameterException: e.g. an
        identity provider that does not exist), CognitoUnavailable.
        """
        request = {key: client[key] for key in _APP_CLIENT_SETTINGS if key in client}
        request.update({"UserPoolId": self.user_pool_id, "ClientId": self.client_id})
        await self.call("UpdateUserPoolClient", request, signed=True)


# Every setting UpdateUserPoolClient takes besides the pool and client ids: what it does not
# receive, it resets.
_APP_CLIENT_SETTINGS = (
    "ClientName",
    "RefreshTokenValidity",
    "AccessTokenValidity",
    "IdTokenValidity",
    "TokenValidityUnits",
    "ReadAttributes",
    "WriteAttributes",
    "ExplicitAuthFlows",
    "SupportedIdentityProviders",
    "CallbackURLs",
    "LogoutURLs",
    "DefaultRedirectURI",
    "AllowedOAuthFlows",
    "AllowedOAuthScopes",
    "AllowedOAuthFlowsUserPoolClient",
    "AnalyticsConfiguration",
    "PreventUserExistenceErrors",
    "EnableTokenRevocation",
    "EnablePropagateAdditionalUserContextData",
    "AuthSessionValidity",
    "RefreshTokenRotation",
)


@dataclass(frozen=True, slots=True)
class IdentityProvider:
    """A SAML identity provider of the pool as the console configures it.

    ``name``: ``ProviderName`` (up to 32 characters); ``metadata``: the identity provider's
    SAML metadata document (sent as ``MetadataFile``); ``identifiers``: ``IdpIdentifiers``
    (email domains; unique across the pool); ``attribute_mapping``: pool attribute -> the
    SAML attribute name the identity provider sends; ``request_signing_algorithm``: how
    Cognito signs its sign-in requests to it (``rsa-sha256``, the one value Cognito takes), or
    None for unsigned requests (``ProviderDetails.RequestSigningAlgorithm``).
    """

    name: str
    metadata: str
    identifiers: tuple[str, ...]
    attribute_mapping: dict[str, str]
    request_signing_algorithm: str | None = None

    def request(self, user_pool_id: str) -> dict[str, Any]:
        """The CreateIdentityProvider request body."""
        details = {"MetadataFile": self.metadata, "IDPSignout": "false"}
        if self.request_signing_algorithm:
            details["RequestSigningAlgorithm"] = self.request_signing_algorithm
        return {
            "UserPoolId": user_pool_id,
            "ProviderName": self.name,
            "ProviderType": "SAML",
            "ProviderDetails": details,
            "AttributeMapping": self.attribute_mapping,
            "IdpIdentifiers": list(self.identifiers),
        }
