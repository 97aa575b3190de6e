"""The ``sign_in_session`` table: each sign-in a person made, until it ends (README "Sessions")."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime

from sqlalchemy import DateTime, Index, String, func, text
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id


class SignInMethod(enum.StrEnum):
    """How a session was signed in; the value is what ``GET /web/sessions`` shows."""

    PASSWORD = "password"  # noqa: S105 - a method's name, not a secret
    PASSKEY = "passkey"
    GOOGLE = "google"
    GITHUB = "github"
    SAML = "saml"
    RECOVERY_CODE = "recoveryCode"


class EndReason(enum.StrEnum):
    """Why a session ended; the value is what ``GET /web/sessions`` shows."""

    SIGNED_OUT = "signedOut"
    ENDED_BY_USER = "endedByUser"
    ENDED_BY_ADMIN = "endedByAdmin"
    SECURITY_CHANGE = "securityChange"


class SignInSession(Base):
    """One sign-in of a pool user (``identity_sub``, the access token's ``sub``) and every token
    refreshed from it: Cognito stamps them all with the sign-in's ``origin_jti``, so a request's
    access token names its session, and ending the session refuses all of them at once, those
    refreshed in the same second too.

    ``browser`` and ``os`` are parsed from ``user_agent`` when the session starts (ua-parser);
    ``client_address`` is the sign-in's. ``last_active_at``: the latest refresh or request, written
    at most once a minute. ``ended_at`` set: every token of the session is refused from then on
    (``ended_reason`` says why). Rows go 90 days after their last activity.
    """

    __tablename__ = "sign_in_session"
    __table_args__ = (
        # A user's live sessions (the Sessions page, a member's count in User Management).
        Index(
            "ix_sign_in_session_live",
            "identity_sub",
            postgresql_where=text("ended_at IS NULL"),
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    identity_sub: Mapped[str] = mapped_column(String(64))
    origin_jti: Mapped[str] = mapped_column(String(64), unique=True)
    method: Mapped[str] = mapped_column(String(20))
    user_agent: Mapped[str] = mapped_column(String(512))
    browser: Mapped[str | None] = mapped_column(String(100))
    os: Mapped[str | None] = mapped_column(String(100))
    client_address: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    last_active_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), index=True
    )
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    ended_reason: Mapped[str | None] = mapped_column(String(20))
