"""The ``stripe_event`` table: webhook events already processed (idempotency on the event id)."""

from __future__ import annotations

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base, TimestampMixin


class StripeEvent(TimestampMixin, Base):
    """One processed Stripe webhook event; ``created_at`` is when we processed it.

    The row is written in the same transaction as the event's effect, so an event delivered
    twice (Stripe retries, duplicates) has its effect once.
    """

    __tablename__ = "stripe_event"

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    type: Mapped[str] = mapped_column(String(100))
