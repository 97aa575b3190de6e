"""The ``usage_hourly`` table: per-account, per-UTC-hour, per-platform rollups that
``GET /web/usage`` reads at ``granularity=hour`` (README "Usage API")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base
from api.models.usage import Platform, platform_key_column


class UsageHourly(Base):
    """Runs, credits and records of one platform in one UTC hour of one account.

    ``hour`` is the start of the hour (``date_trunc('hour', recorded_at, 'UTC')``): records
    land by their own time, whatever billing cycle counts them, so an hour has one row per
    platform and 24 of them add up to a day of ``usage_daily``. Kept by the metering intake in
    the statement that stores the records, like ``usage_daily``; a range of hours is one index
    range scan (``account_id``, ``hour``). ``records`` counts the metering records (one per
    idempotency key), ``credits`` their metered ``ai()`` requests, ``runs`` the test runs.
    """

    __tablename__ = "usage_hourly"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    hour: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    platform: Mapped[Platform] = platform_key_column()
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
