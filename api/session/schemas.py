"""Wire shapes of the session domain (SPEC 3 "Session", 7 identity provider calls)."""

from __future__ import annotations

import uuid

from pydantic import Field, field_validator

from api.schemas import ApiModel


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

    email: str = Field(max_length=320)
    password: str = Field(max_length=256)

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        value = value.strip().lower()
        if not value:
            raise ValueError("Email address is required")
        return value

    @field_validator("password")
    @classmethod
    def _password(cls, value: str) -> str:
        if not value:
            raise ValueError("Password is required")
        return value


class TokensOut(ApiModel):
    """Cognito tokens. ``expires_in`` is the access token's lifetime in seconds;
    ``refresh_token`` is null on a refresh (keep the one you have)."""

    access_token: str
    id_token: str
    refresh_token: str | None
    expires_in: int


class ChallengeOut(ApiModel):
    """A challenge to answer before tokens are issued (e.g. NEW_PASSWORD_REQUIRED)."""

    name: str
    session: str
    username: str


class SignInResponse(ApiModel):
    """Exactly one of ``tokens`` and ``challenge`` is set."""

    tokens: TokensOut | None = None
    challenge: ChallengeOut | None = None


class RefreshRequest(ApiModel):
    """Exchange a refresh token for new access and ID tokens."""

    refresh_token: str = Field(min_length=1, max_length=8192)
