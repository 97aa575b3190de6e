"""The ``scim_token`` table: the bearer tokens an account's identity provider provisions users
with (README "Directory sync (SCIM)")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id


class ScimToken(Base):
    """One SCIM bearer token of an account.

    Shown once when generated and stored only as its SHA-256 (``token_hash``, what a SCIM
    request is looked up by), like an API key's hash; ``last4`` names it in the console.
    ``created_by_user_id`` is who generated it (null once that user is removed);
    ``last_used_at`` is written at most once a minute per token. Revoking deletes the row.
    """

    __tablename__ = "scim_token"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    last4: Mapped[str] = mapped_column(String(4))
    created_by_user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
