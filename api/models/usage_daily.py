"""The ``usage_daily`` table: per-account, per-billing-cycle, per-UTC-day, per-platform rollups
that the usage export (README "Usage alerts and export") and ``GET /web/usage`` per day read."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from sqlalchemy import BigInteger, Date, DateTime, Enum, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base
from api.models.usage import Platform


class UsageDaily(Base):
    """Totals of one platform on one UTC day within one billing cycle of one account (runs,
    credits and records, as ``usage``).

    Kept by the metering intake in the statement that stores the records, like ``usage``. A
    day that a cycle boundary cuts in two has a row in each cycle, so a cycle's days add up
    to its ``usage`` row exactly. Exporting a cycle reads at most 3 x 31 rows.
    """

    __tablename__ = "usage_daily"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    platform: Mapped[Platform] = mapped_column(
        Enum(
            Platform,
            name="platform",
            values_callable=lambda e: [m.value for m in e],
            create_type=False,
        ),
        primary_key=True,
    )
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
