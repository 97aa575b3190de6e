"""The ``user`` table: a person who signs in, tied to one account (SPEC 3 User)."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, DateTime, Enum, ForeignKey, Index, String, func
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, TimestampMixin, new_id


class AuthType(enum.StrEnum):
    """How a user signs in; the value is what the console shows (SPEC 3: 'Google SSO')."""

    EMAIL = "Email"
    GOOGLE_SSO = "Google SSO"
    GITHUB = "GitHub"
    SAML_SSO = "SAML SSO"


class Role(enum.StrEnum):
    """What a user may do in their account (README "Roles and invitations"); the value is what the
    console shows.

    - ``OWNER``: everything, billing and other Owners included;
    - ``ADMIN``: users (not Owners), single sign-on, the account's name, API keys and usage
      alerts; not billing;
    - ``MEMBER``: reads Account Information and copies the API key; changes nothing.

    Which operations need which permission, which roles hold it and which users an Admin may
    manage: ``api/principal/roles.py``.
    """

    OWNER = "Owner"
    ADMIN = "Admin"
    MEMBER = "Member"


class User(TimestampMixin, Base):
    """A user of one account.

    ``identity_id`` is the Cognito username (immutable and unique in the pool): for password
    users the email they were created with (it stays their username when the account's
    directory changes their email: password sign-in resolves an email to it, README "Directory
    sync (SCIM)"), ``google_<id>`` / ``github_<id>`` for federated ones (SPEC 4),
    ``<provider name>_<NameID>`` for people of a SAML connection; None for a user the
    account's directory provisioned who signs in through the account's single sign-on and has
    not yet (the pool user is made at that first sign-in, which binds it). ``email`` is
    unique case-insensitively across all accounts.

    ``directory_attributes`` is what the account's directory (SCIM, README "Directory sync
    (SCIM)") last set for the user that the console has no column of its own for
    (``userName``, ``displayName``, ``emails`` as sent); None for users the directory does not
    manage. ``external_id`` is the directory's own id of the person (SCIM ``externalId``).

    ``identity_sub`` is the Cognito ``sub`` of the pool user this row was last signed in as
    (set at every sign-in): access tokens are matched to users by it, so a pool user deleted
    and created again under the same username does not inherit the old one's tokens.
    ``tokens_valid_after`` ends every access token issued before it (whole seconds: a token's
    ``iat`` is); ``deactivated_at`` ends access until cleared. ``retired_identity_sub`` is the
    ``sub`` of the SAML identity the user signed in with until the account removed its SAML
    connection: its tokens open nothing, and are told why. The rules that read them:
    ``api/principal/principal.py``.
    """

    __tablename__ = "user"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), index=True
    )
    identity_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    first_name: Mapped[str] = mapped_column(String(100))
    last_name: Mapped[str] = mapped_column(String(100))
    email: Mapped[str] = mapped_column(String(320))
    auth_type: Mapped[AuthType] = mapped_column(
        Enum(AuthType, name="auth_type", values_callable=lambda e: [m.value for m in e])
    )
    elevation_role: Mapped[str | None] = mapped_column(String(40))
    # No default: whoever adds a user decides (registration and SSO create: Owner; SSO join:
    # Member; an invitation: the role chosen in the invite).
    role: Mapped[Role] = mapped_column(
        Enum(Role, name="user_role", values_callable=lambda e: [m.value for m in e])
    )
    # An invited user is Pending from ``invited_at`` until their first sign-in
    # (``signed_in_at`` is then set, and updated at each sign-in), Expired once
    # ``invitation_expires_at`` has passed without one (api/identity/users/service.py; Resend sets
    # both again). Users who registered or joined through SSO have no invitation.
    invited_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    invitation_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    signed_in_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Receives the account's usage alerts (README "Usage alerts and export"); everyone does unless
    # they opt out.
    usage_alerts: Mapped[bool] = mapped_column(Boolean, default=True, server_default="true")
    identity_sub: Mapped[str | None] = mapped_column(String(64), unique=True)
    retired_identity_sub: Mapped[str | None] = mapped_column(String(64))
    tokens_valid_after: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    deactivated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Whether the user proved they receive mail at ``email``: the identity provider asserted
    # it, an invitation was delivered there, or they entered the code Cognito emailed them
    # after registering (README "Security model").
    email_verified: Mapped[bool] = mapped_column(Boolean, default=True, server_default="true")
    external_id: Mapped[str | None] = mapped_column(String(255))
    directory_attributes: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # Two-step sign-in (README "Two-step sign-in"; password users only): on since
    # ``two_step_enabled_at``; a new set-up is due since ``two_step_reset_at`` (an Owner or
    # Admin reset it, or the user signed in with a recovery code), cleared by the set-up.
    two_step_enabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    two_step_reset_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


Index("uq_user_email_lower", func.lower(User.email), unique=True)
# SCIM userName is unique per account, case-insensitively (RFC 7643 4.1.1: caseExact false).
Index(
    "uq_user_directory_user_name",
    User.account_id,
    func.lower(User.directory_attributes["userName"].astext),
    unique=True,
)
Index("ix_user_account_id_external_id", User.account_id, User.external_id)
Index(
    "ix_user_retired_identity_sub",
    User.retired_identity_sub,
    postgresql_where=User.retired_identity_sub.is_not(None),
)
