"""The ``rate_limit_counter`` table: one row per limited key and fixed time window."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class RateLimitCounter(Base):
    """How many attempts ``key`` made in the window starting at ``window_start``.

    ``key`` names the limit and its subject, e.g. ``sign-in:email:ada@example.com`` or
    ``sign-in:ip:203.0.113.7``. Rows of past windows are deleted as new windows start.
    """

    __tablename__ = "rate_limit_counter"

    key: Mapped[str] = mapped_column(String(400), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), primary_key=True, index=True
    )
    hits: Mapped[int] = mapped_column(Integer)
