"""The ``usage_label``, ``usage_label_daily`` and ``usage_label_hourly`` tables: an account's
usage per value of each label its metering records carried (README "Metering intake"), per
billing cycle, per UTC day and platform, and per UTC hour and platform."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from sqlalchemy import BigInteger, Date, DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base
from api.models.usage import Platform, platform_key_column

LABEL_NAME_MAX_LENGTH = 32
LABEL_VALUE_MAX_LENGTH = 100
LABEL_VALUES_PER_CYCLE = 1000
"""Distinct values one label keeps per account and billing cycle (README "Metering intake"):
a record with a new value past them is still counted, under :data:`OTHER_LABEL_VALUE`, so one
label whose values are run ids cannot grow the rollups (and the breakdown's reads) without
bound."""
OTHER_LABEL_VALUE = ""
"""The ``label_value`` of the rollup row that counts a label's values past
:data:`LABEL_VALUES_PER_CYCLE`: blank, which no record's value can be (values are not blank),
and never named by the breakdown (its requests are in ``otherValues``)."""


class UsageLabel(Base):
    """Runs and credits of the records labelled ``label_key`` = ``label_value`` in one billing
    cycle of one account. Kept by the intake's statement; the usage breakdown by label reads it
    (a label's values in a cycle, never the records)."""

    __tablename__ = "usage_label"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    label_key: Mapped[str] = mapped_column(String(LABEL_NAME_MAX_LENGTH), primary_key=True)
    label_value: Mapped[str] = mapped_column(String(LABEL_VALUE_MAX_LENGTH), primary_key=True)
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class UsageLabelDaily(Base):
    """``usage_label`` split by UTC day and platform, as ``usage_daily`` splits ``usage``: the
    export's columns per label value (README "Usage alerts and export") and ``GET /web/usage``
    grouped by a label per day and per cycle; ``records`` counts the records carrying the
    value."""

    __tablename__ = "usage_label_daily"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    label_key: Mapped[str] = mapped_column(String(LABEL_NAME_MAX_LENGTH), primary_key=True)
    label_value: Mapped[str] = mapped_column(String(LABEL_VALUE_MAX_LENGTH), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    platform: Mapped[Platform] = platform_key_column()
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class UsageLabelHourly(Base):
    """Runs, credits and records of the records labelled ``label_key`` = ``label_value`` in one
    UTC hour and platform (by the records' own time, as ``usage_hourly``): ``GET /web/usage``
    grouped by a label at ``granularity=hour`` (README "Usage API"). A value past the label's
    ``LABEL_VALUES_PER_CYCLE`` of its billing cycle counts under :data:`OTHER_LABEL_VALUE`, as
    in ``usage_label``. The key leads with the label, then the hour, so one label's values over
    a range of hours are one index range scan."""

    __tablename__ = "usage_label_hourly"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    label_key: Mapped[str] = mapped_column(String(LABEL_NAME_MAX_LENGTH), primary_key=True)
    hour: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    label_value: Mapped[str] = mapped_column(String(LABEL_VALUE_MAX_LENGTH), primary_key=True)
    platform: Mapped[Platform] = platform_key_column()
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
