"""The ``removed_identity`` table: people an Owner or Admin removed from an account, so that
they cannot walk back in through SSO auto-join (README "Security model")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id


class RemovedIdentity(Base):
    """A person removed from ``account_id``: their email (lowercased), the Cognito ``sub`` of
    the pool user they signed in as (so that user's remaining access tokens get a clear
    refusal) and, for a federated identity, the provider and the provider's own user id
    (Google's ``sub``), which outlives their pool user.

    Auto-join refuses anyone matching the email or the provider identity; inviting the email
    again deletes the rows of that email in that account.
    """

    __tablename__ = "removed_identity"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("account.id", ondelete="CASCADE"))
    email: Mapped[str] = mapped_column(String(320))
    identity_sub: Mapped[str | None] = mapped_column(String(64), index=True)
    provider: Mapped[str | None] = mapped_column(String(40))
    provider_subject: Mapped[str | None] = mapped_column(String(255))
    removed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


Index("ix_removed_identity_account_email", RemovedIdentity.account_id, RemovedIdentity.email)
