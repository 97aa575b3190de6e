"""The ``user`` table: a person who signs in, tied to one account (SPEC 3 User)."""

from __future__ import annotations

import enum
import uuid

from sqlalchemy import Boolean, Enum, ForeignKey, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, TimestampMixin, new_id


class AuthType(enum.StrEnum):
    """How a user signs in; the value is what the console shows (SPEC 3: 'Google SSO')."""

    EMAIL = "Email"
    GOOGLE_SSO = "Google SSO"
    GITHUB = "GitHub"


class User(TimestampMixin, Base):
    """A user of one account.

    ``identity_id`` is the Cognito username (immutable and unique in the pool): the email for
    password users, ``google_<id>`` / ``github_<id>`` for federated ones (SPEC 4). ``email`` is
    unique case-insensitively across all accounts.
    """

    __tablename__ = "user"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), index=True
    )
    identity_id: Mapped[str] = mapped_column(String(255), unique=True)
    first_name: Mapped[str] = mapped_column(String(100))
    last_name: Mapped[str] = mapped_column(String(100))
    email: Mapped[str] = mapped_column(String(320))
    auth_type: Mapped[AuthType] = mapped_column(
        Enum(AuthType, name="auth_type", values_callable=lambda e: [m.value for m in e])
    )
    elevation_role: Mapped[str | None] = mapped_column(String(40))
    # Receives the account's usage alerts (issue 14); everyone does unless they opt out.
    usage_alerts: Mapped[bool] = mapped_column(Boolean, default=True, server_default="true")


Index("uq_user_email_lower", func.lower(User.email), unique=True)
