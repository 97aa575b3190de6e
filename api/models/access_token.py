"""The ``access_token`` table: the account's tokens for automation (README "Automation")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ARRAY, DateTime, Enum, ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id
from api.models.user import Role


class AccessToken(Base):
    """One access token of an account.

    Stored as its SHA-256 (``token_hash``, what a request is looked up by) and its last four
    characters (``last4``, to name it); the secret itself is shown once. ``scopes`` are the
    permissions it holds (``api.principal.roles.Permission`` values), never beyond what
    ``creator_role`` (the creator's role when it was made) held then. The token belongs to the
    account: ``created_by_user_id`` turns null when its creator is removed, and
    ``created_by_name`` keeps naming them. ``revoked_at`` set: refused from then on (the row
    stays, so the audit log's references and the list's history hold). ``last_used_at`` and
    ``last_used_address`` are written at most once a minute. ``expiry_reminded_at``: when the
    creator and the Owners were told it expires within seven days; ``expiry_notified_at``: when
    they were told it expired.
    """

    __tablename__ = "access_token"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    last4: Mapped[str] = mapped_column(String(4))
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(40)))
    creator_role: Mapped[Role] = mapped_column(
        Enum(Role, name="user_role", values_callable=lambda e: [m.value for m in e])
    )
    created_by_user_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), index=True
    )
    created_by_name: Mapped[str] = mapped_column(String(400))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_used_address: Mapped[str | None] = mapped_column(String(64))
    expiry_reminded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    expiry_notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
