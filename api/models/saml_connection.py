"""The ``saml_connection`` table: an account's SAML identity provider, which Cognito knows as a
SAML identity provider of the user pool (README "SAML single sign-on")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, TimestampMixin, new_id


class SamlConnection(TimestampMixin, Base):
    """One account's SAML connection (at most one per account).

    ``provider_name`` is the pool's name for the identity provider (``ProviderName`` of
    CreateIdentityProvider: it prefixes the Cognito usernames of the people who sign in
    through it and names it in their ``identities`` attribute). ``metadata_xml`` is the
    identity provider's metadata document as last checked and sent to Cognito
    (``MetadataFile``); ``metadata_url``, when set, is where it is fetched again every day.
    ``idp_entity_id``, ``sso_url`` and ``certificate_expires_at`` (the latest ``notAfter`` of
    its signing certificates) are read from it. ``idp_identifiers`` are the
    ``IdpIdentifiers`` Cognito holds (the account's verified domains when last sent).

    ``metadata_checked_at`` is when the metadata was last fetched or uploaded and
    ``metadata_error`` why the last daily fetch failed (null when it worked; the connection
    keeps the metadata it had). ``identifiers_error`` is why Cognito did not take the
    identifiers at the last hourly upkeep (null when it did) and ``identifiers_failed_at``
    when it refused them (the upkeep tries again a day later, not at every pass).
    ``expiry_notice_for`` is the ``certificate_expires_at`` whose expiry email went out (one
    email per certificate). ``last_test_*``: what the identity
    provider sent at the last test sign-in, or what was wrong with it (``last_test_problem``).

    ``created_by_user_id`` is who connected it (null once that user is removed, or when it is
    not known: a connection older than this column whose audit entry is gone).
    ``linking_confirmed_at`` / ``linking_confirmed_by_user_id``: when and by which Owner the
    connection was allowed to link a first sign-in to an existing user of the account (README
    "Security model", "Who someone is"): set when an Owner saves it or confirms it; null for a
    connection an Admin saved before connecting was an Owner's, which signs in only people new
    to the account until an Owner confirms it.
    """

    __tablename__ = "saml_connection"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), unique=True
    )
    provider_name: Mapped[str] = mapped_column(String(32), unique=True)
    metadata_url: Mapped[str | None] = mapped_column(String(2048))
    metadata_xml: Mapped[str] = mapped_column(Text)
    idp_entity_id: Mapped[str] = mapped_column(String(1024))
    sso_url: Mapped[str] = mapped_column(String(2048))
    certificate_expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    idp_identifiers: Mapped[list[str]] = mapped_column(ARRAY(String(253)), default=list)
    metadata_checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    metadata_error: Mapped[str | None] = mapped_column(Text)
    identifiers_error: Mapped[str | None] = mapped_column(Text)
    identifiers_failed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    expiry_notice_for: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_test_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_test_email: Mapped[str | None] = mapped_column(String(320))
    last_test_first_name: Mapped[str | None] = mapped_column(String(100))
    last_test_last_name: Mapped[str | None] = mapped_column(String(100))
    last_test_problem: Mapped[str | None] = mapped_column(Text)
    created_by_user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL")
    )
    linking_confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    linking_confirmed_by_user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL")
    )
