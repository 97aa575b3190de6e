"""The ``two_step_challenge`` table: whose password opened each SOFTWARE_TOKEN_MFA challenge
the API handed out (README "Two-step sign-in"), so the code step knows its user from the
challenge itself, not from how the request spells them."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class TwoStepChallenge(Base):
    """The challenge whose Cognito ``Session`` has the SHA-256 ``session_digest`` (hex; the
    session itself is not kept) was opened by the password of the user ``user_id``; it can be
    answered until ``expires_at`` (Cognito's longest ``AuthSessionValidity``). Expired rows
    are deleted as new ones are written."""

    __tablename__ = "two_step_challenge"

    session_digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), index=True
    )
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
