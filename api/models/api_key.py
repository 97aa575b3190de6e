"""The ``api_key`` table and what hangs off it: the keys an account's test service sends to the
metering intake (README "API keys"), their use per billing cycle, and each time one was revealed."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, new_id


class ApiKey(Base):
    """One API key of an account.

    Stored as its SHA-256 (``key_hash``, what the intake looks up) and sealed with AES-256-GCM
    (``sealed`` under the key ring's ``encryption_key_id``, api/secretbox.py) so the console can
    show it again; never in plain text. ``last4`` shows it masked (``ak_…1a2b``). A key is
    accepted until ``expires_at`` (None: no end); rolling a key sets the old one's end.
    ``last_used_at`` is written at most once a minute per key.
    """

    __tablename__ = "api_key"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), index=True
    )
    key_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    sealed: Mapped[bytes] = mapped_column(LargeBinary)
    encryption_key_id: Mapped[str] = mapped_column(String(40))
    last4: Mapped[str] = mapped_column(String(4))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiKeyUsage(Base):
    """Records a key sent that the intake counted in the billing cycle starting at
    ``cycle_start`` (kept by the intake's statement, one row per key and cycle)."""

    __tablename__ = "api_key_usage"

    key_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("api_key.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
