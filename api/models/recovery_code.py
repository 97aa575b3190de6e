"""The ``recovery_code`` table: a user's one-time recovery codes of two-step sign-in (README
"Two-step sign-in"), stored only as Argon2id hashes."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id


class RecoveryCode(Base):
    """One of the ten codes a user got when they set up two-step sign-in (or regenerated
    them): ``code_hash`` is its Argon2id hash in PHC form (``$argon2id$v=19$m=...$salt$hash``;
    the codes of one set share the salt, api/principal/recovery_codes.py), ``used_at`` when it
    signed someone in (a code works once). Setting up again or regenerating deletes the set."""

    __tablename__ = "recovery_code"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), index=True
    )
    code_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
