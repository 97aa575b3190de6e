"""The ``usage`` table: per-account, per-billing-cycle, per-platform rollups (SPEC 3, 9)."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Enum, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class Platform(enum.StrEnum):
    """The three usage series of the graph (SPEC 1)."""

    WEB = "web"
    NATIVE_MOBILE = "nativeMobile"
    API = "api"


def platform_key_column() -> Mapped[Platform]:
    """A ``platform`` primary-key column of a rollup split by platform (the type is created with
    ``usage``, the first table that had one)."""
    return mapped_column(
        Enum(
            Platform,
            name="platform",
            values_callable=lambda e: [m.value for m in e],
            create_type=False,
        ),
        primary_key=True,
    )


class Usage(Base):
    """Totals of one platform in one billing cycle of one account.

    ``runs`` counts test runs that used ``ai()``; ``credits`` counts metered ``ai()`` requests
    (what the plan allowance limits); ``records`` the metering records counted (one per
    idempotency key). Reading an account's usage reads at most 3 x cycles rows, however many
    records were metered.
    """

    __tablename__ = "usage"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    platform: Mapped[Platform] = mapped_column(
        Enum(Platform, name="platform", values_callable=lambda e: [m.value for m in e]),
        primary_key=True,
    )
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    records: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
