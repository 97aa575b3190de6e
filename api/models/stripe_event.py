"""The ``stripe_event`` table: the Stripe webhook events received, each applied once
(idempotency on the event id; README "Billing", "Background work")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, TimestampMixin


class StripeEvent(TimestampMixin, Base):
    """One Stripe webhook event; ``created_at`` is when we received it.

    The webhook route writes the row (``ON CONFLICT DO NOTHING`` on the id) and defers the job
    that applies it in the same transaction, so an event delivered twice is recorded once and
    processed by one job. The job sets ``processed_at`` in the transaction of the event's
    effect, so a job run again (a worker died after its commit) changes nothing.

    - ``occurred_at``: Stripe's ``created`` of the event (whole seconds), which orders it
      against the state it changes;
    - ``data``: the event's ``data.object`` as Stripe sent it (signature-verified);
    - ``processed_at``: when it was applied (or found to change nothing); None while its job
      waits. Rows of before the job engine have neither ``occurred_at`` nor ``data``.
    """

    __tablename__ = "stripe_event"

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    type: Mapped[str] = mapped_column(String(100))
    occurred_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    data: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    processed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
