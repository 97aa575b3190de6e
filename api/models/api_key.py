"""The ``api_key`` table and what hangs off it: the keys an account's test service sends to the
metering intake (README "API keys"), their use per billing cycle, day and hour."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from sqlalchemy import BigInteger, Date, DateTime, ForeignKey, LargeBinary, String, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id
from api.models.usage import Platform, platform_key_column


class ApiKey(Base):
    """One API key of an account.

    Stored as its SHA-256 (``key_hash``, what the intake looks up) and sealed with AES-256-GCM
    (``sealed`` under the key ring's ``encryption_key_id``, api/kernel/secretbox.py) so the console
    can
    show it again; never in plain text. ``last4`` shows it masked (``ak_…1a2b``). A key is
    accepted until ``expires_at`` (None: no end); rolling a key sets the old one's end.
    ``last_used_at`` is written at most once a minute per key. ``monthly_limit``: the requests
    (credits) it may have counted per billing cycle (None: no limit; README "API keys").
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
    monthly_limit: Mapped[int | None] = mapped_column(BigInteger)


class ApiKeyUsage(Base):
    """What a key sent that the intake counted in the billing cycle starting at
    ``cycle_start``: records, test runs and credits (metered ``ai()`` requests). Kept by the
    intake's statement, one row per key and cycle; the usage breakdown by key reads it."""

    __tablename__ = "api_key_usage"

    key_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("api_key.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # The monthly limit the key reached in the cycle (a batch was refused at it), and when:
    # its emails go once per cycle and limit value, so a raised limit reached again tells again.
    limit_reached: Mapped[int | None] = mapped_column(BigInteger)
    limit_reached_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiKeyUsageDaily(Base):
    """A key's runs, credits and records on one UTC day and platform within one billing cycle:
    the export's columns per key (README "Usage alerts and export") and ``GET /web/usage``
    grouped by API key per day and per cycle. Kept by the intake's statement beside
    ``usage_daily``, whose rows it splits by key."""

    __tablename__ = "api_key_usage_daily"

    key_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("api_key.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    platform: Mapped[Platform] = platform_key_column()
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class ApiKeyUsageHourly(Base):
    """A key's runs, credits and records in one UTC hour and platform (by the records' own
    time, as ``usage_hourly``, whose rows it splits by key): ``GET /web/usage`` grouped by API
    key at ``granularity=hour`` (README "Usage API"). Kept by the intake's statement."""

    __tablename__ = "api_key_usage_hourly"

    key_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("api_key.id", ondelete="CASCADE"), primary_key=True
    )
    hour: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    platform: Mapped[Platform] = platform_key_column()
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
