"""The ``two_step_used_code`` table: authenticator-app codes a user's two-step sign-in
accepted lately, refused again until no clock could still show them (README "Two-step
sign-in", a code works once; RFC 6238 5.2)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class TwoStepUsedCode(Base):
    """The ``code`` (as typed, spaces dropped) of the user ``user_id`` was accepted (or is
    being tried right now), and is refused until ``usable_until``: the end of the last time
    step in which Cognito could still accept it. Kept in clear: it is worthless once that
    time has passed, and refused until then. Rows past it are deleted as the user's next
    codes are tried."""

    __tablename__ = "two_step_used_code"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True
    )
    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    usable_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
