"""The ``sign_in_backoff`` table: failed password and reset-code attempts of one email from
one client address, and until when the next attempt must wait."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class SignInBackoff(Base):
    """``failures`` consecutive failed attempts for ``email`` from ``address_key`` (a client
    address's ``limit_key``: an IPv6 client's /64); none may be tried before
    ``blocked_until``. A success deletes the row; rows untouched for a day are deleted as new
    ones are made (``updated_at`` finds them).
    """

    __tablename__ = "sign_in_backoff"

    email: Mapped[str] = mapped_column(String(320), primary_key=True)
    address_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    blocked_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
