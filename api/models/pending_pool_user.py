"""The ``pending_pool_user`` table: pool users the console has begun to create and whose console
row has not committed yet (api/identity/membership/pool_users.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class PendingPoolUser(Base):
    """A Cognito user named ``username`` is being created since ``started_at``. Committed on
    its own before the pool is asked; deleted by the transaction that inserts the user's row,
    so a row left here past ``ORPHAN_USER_AGE_MIN`` marks a creation a crash interrupted.
    """

    __tablename__ = "pending_pool_user"

    username: Mapped[str] = mapped_column(String(320), primary_key=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
