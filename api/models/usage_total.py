"""The ``usage_total`` table: an account's requests per billing cycle, all platforms together,
which the intake checks the allowance against (README "Metering intake")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class UsageTotal(Base):
    """Runs and credits of one billing cycle of one account: the sum of its ``usage`` rows,
    kept by the intake's statement in the same transaction. One row per cycle, so that a
    batch checking the allowance locks one row and concurrent batches (on any replica) wait
    for each other's count instead of each passing a check the other has made stale.

    ``allowance_reached``: the allowance a batch was refused at in the cycle (the account stops
    at it), and when; its emails go once per cycle and allowance.
    """

    __tablename__ = "usage_total"

    account_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("account.id", ondelete="CASCADE"), primary_key=True
    )
    cycle_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    credits: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    allowance_reached: Mapped[int | None] = mapped_column(BigInteger)
    allowance_reached_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
