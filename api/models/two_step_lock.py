"""The ``two_step_lock`` table: wrong authenticator-app codes of one user in a row, and until
when their code step stays locked (README "Two-step sign-in", wrong codes lock the second
step)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class TwoStepLock(Base):
    """``failures`` wrong codes of the user ``user_id`` since their last right one, whatever
    the path (sign-in, re-authentication) and however the request spelled them; no code of
    theirs is tried before ``locked_until``. Only a right code deletes the row (a password
    does not), so the count outlives any number of password sign-ins; ``updated_at`` is the
    last wrong code."""

    __tablename__ = "two_step_lock"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    failures: Mapped[int] = mapped_column(Integer)
    locked_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
