"""The ``usage_alert`` table: the usage alerts already sent, one per account, billing cycle and
threshold (README "Usage alerts and export")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, SmallInteger, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class UsageAlert(Base):
    """``threshold`` percent of the allowance was reached in the cycle starting at
    ``cycle_start``: ``used`` requests of ``allowance`` when the intake saw it.

    The primary key makes the crossing happen once: the intake inserts with ``ON CONFLICT DO
    NOTHING`` in the transaction that counted the records, and emails only what it inserted.
    """

    __tablename__ = "usage_alert"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    threshold: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    used: Mapped[int] = mapped_column(BigInteger)
    allowance: Mapped[int] = mapped_column(BigInteger)
    reached_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
