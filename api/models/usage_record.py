"""The ``usage_record`` table: every metered record the intake accepted (idempotency keys)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, Enum, ForeignKey, Integer, String, Uuid, func
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base
from api.models.usage import Platform


class UsageRecord(Base):
    """One metered record as the test service sent it to the intake (``POST /metering/usage``).

    The primary key ``(account_id, idempotency_key)`` makes a retried record a no-op: the intake
    inserts with ``ON CONFLICT DO NOTHING`` and adds only the newly inserted records to the
    ``usage`` rollups, in the same transaction. ``cycle_start`` is the billing cycle the record
    was counted in, ``api_key_id`` the key that sent it (None for records from before keys were
    recorded, and the dev seed's), ``labels`` its labels as sent (README "Metering intake"), so
    every rollup can be rebuilt from this table. Reads never scan it. ``api_key_id`` has no
    foreign key: checking one would cost an index probe per record on the intake's path, and
    keys are never deleted apart from their account (whose records go with it).
    """

    __tablename__ = "usage_record"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    idempotency_key: Mapped[str] = mapped_column(String(200), primary_key=True)
    platform: Mapped[Platform] = mapped_column(
        Enum(
            Platform,
            name="platform",
            values_callable=lambda e: [m.value for m in e],
            create_type=False,
        )
    )
    runs: Mapped[int] = mapped_column(Integer)
    credits: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    api_key_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    labels: Mapped[dict[str, str] | None] = mapped_column(JSONB)
    received_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )
