"""Wire shapes of the session domain (SPEC 3 "Session", 7 identity provider calls)."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from pydantic import Field, field_validator

from api.emails import is_valid_email
from api.schemas import REQUIRED, ApiModel, Email, PersonName, required
from api.session import rules

EMAIL_REQUIRED = "Email address is required"  # SPEC 5 Login, reset screens


class SessionUser(ApiModel):
    """The signed-in user."""

    id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    elevation_role: str | None = None


class SessionAccount(ApiModel):
    """The signed-in user's account, as the sidebar shows it."""

    name: str


class Session(ApiModel):
    """A user's sign-in session."""

    user: SessionUser
    account: SessionAccount


class SessionResponse(ApiModel):
    """``GET /web/session`` body."""

    session: Session


class SignInRequest(ApiModel):
    """Password sign-in. The email is lowercased and trimmed before use (SPEC 5 Login)."""

    email: Annotated[Email, required(EMAIL_REQUIRED)]
    password: Annotated[str, Field(max_length=256), required("Password is required")]


class Tokens(ApiModel):
    """Cognito access and ID tokens; ``expires_in`` is the access token's lifetime in seconds.
    The refresh token is never in a body: it is set as an httpOnly cookie that only
    ``POST /web/session/refresh`` receives (api/session/cookies.py)."""

    access_token: str
    id_token: str
    expires_in: int


class Challenge(ApiModel):
    """A challenge to answer before tokens are issued (e.g. NEW_PASSWORD_REQUIRED)."""

    name: str
    session: str
    username: str


class SignInResponse(ApiModel):
    """Exactly one of ``tokens`` and ``challenge`` is set."""

    tokens: Tokens | None = None
    challenge: Challenge | None = None


def _required(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(REQUIRED)
    return value


def _new_password(value: str) -> str:
    if not rules.is_strong_password(value):
        raise ValueError(rules.PASSWORD_RULE)
    return value


class CompleteNewPasswordRequest(ApiModel):
    """Answer to the NEW_PASSWORD_REQUIRED challenge of a sign-in (SPEC 4)."""

    username: str = Field(min_length=1, max_length=320)
    session: str = Field(min_length=1, max_length=8192)
    new_password: str = Field(max_length=256)

    @field_validator("new_password")
    @classmethod
    def _password(cls, value: str) -> str:
        if not value:
            raise ValueError("A new password is required")
        return _new_password(value)


class ForgotPasswordRequest(ApiModel):
    """Ask for a password-reset code by email (SPEC 4 forgot-password)."""

    email: Annotated[Email, required(EMAIL_REQUIRED)]


class CodeDelivery(ApiModel):
    """Where the reset code went, e.g. destination ``a***@e***``, medium ``EMAIL``."""

    destination: str
    delivery_medium: str
    attribute_name: str


class ForgotPasswordResponse(ApiModel):
    """``code_delivery`` is null when the provider refused silently (SPEC 8:
    NotAuthorizedException is ignored): the screen stays as it is."""

    code_delivery: CodeDelivery | None


class ConfirmForgotPasswordRequest(ApiModel):
    """The emailed code and the new password (SPEC 4 complete-forgot-password)."""

    email: Annotated[Email, required(EMAIL_REQUIRED)]
    code: str = Field(max_length=64)
    new_password: str = Field(max_length=256)

    @field_validator("code")
    @classmethod
    def _code(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("Verification code is required")
        return value

    @field_validator("new_password")
    @classmethod
    def _password(cls, value: str) -> str:
        if not value:
            raise ValueError("Enter a new password")
        return _new_password(value)


class AuthorizeRequest(ApiModel):
    """Start a hosted-UI sign-in (SPEC 2 /oauth/google/login, /oauth/github/login):
    the provider name and where the hosted UI sends the browser back (``/oauth/sso``)."""

    identity_provider: Literal["Google", "Github"]
    redirect_uri: str = Field(min_length=1, max_length=2048)


class AuthorizeResponse(ApiModel):
    """Where to send the browser: the hosted UI's authorize page with ``state`` and a PKCE
    challenge, bound to this browser by the ``oauth_flow`` cookie set with this response."""

    authorize_url: str


class CodeExchangeRequest(ApiModel):
    """The hosted UI's authorization code, the ``state`` it came back with, and the redirect
    URI it was issued for."""

    code: str = Field(min_length=1, max_length=2048)
    state: str = Field(min_length=1, max_length=256)
    redirect_uri: str = Field(min_length=1, max_length=2048)


class FederatedIdentity(ApiModel):
    """Who signed in with the identity provider (claims of its ID token, SPEC 7).

    ``username`` is the Cognito username, e.g. ``google_1234``; names may be empty.
    """

    username: str
    email: str
    first_name: str
    last_name: str


class CodeExchangeResponse(ApiModel):
    """Tokens of the third-party sign-in and the identity they belong to."""

    tokens: Tokens
    identity: FederatedIdentity


class RegistrationRequest(ApiModel):
    """The registration form (SPEC 3). Every field is required ('Required'); the email is a
    business email, lowercased and trimmed; names are trimmed; the password follows SPEC 5."""

    first_name: Annotated[PersonName, required(REQUIRED)]
    last_name: Annotated[PersonName, required(REQUIRED)]
    email_address: Annotated[Email, required(REQUIRED)]
    organization_name: str = Field(max_length=200)
    new_password: str = Field(max_length=256)

    @field_validator("organization_name")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        return _required(value)

    @field_validator("email_address")
    @classmethod
    def _email(cls, value: str) -> str:
        if not is_valid_email(value):
            raise ValueError(rules.BUSINESS_EMAIL)
        return value

    @field_validator("new_password")
    @classmethod
    def _password(cls, value: str) -> str:
        if not value:
            raise ValueError(REQUIRED)
        return _new_password(value)


class SsoAccount(ApiModel):
    """An account the identity may join (SPEC 3 "SSO join candidate")."""

    account_id: uuid.UUID
    account_name: str
    users_count: int


class SsoAccountsResponse(ApiModel):
    """Accounts with Google SSO on for the identity's email domain, and that domain."""

    accounts: list[SsoAccount]
    domain: str


class SsoJoinRequest(ApiModel):
    """SPEC 3 "Join payload"."""

    account_id: uuid.UUID
    user_first_name: PersonName
    user_last_name: PersonName
    user_email: Email
    user_identity_id: str = Field(min_length=1, max_length=255)


class SsoCreateRequest(ApiModel):
    """SPEC 3 "Create-account payload"; the account name is trimmed and must not be empty."""

    account_name: str = Field(max_length=200)
    user_first_name: PersonName
    user_last_name: PersonName
    user_email: Email
    user_identity_id: str = Field(min_length=1, max_length=255)

    @field_validator("account_name")
    @classmethod
    def _name(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("Account name must not be empty")
        return value
