"""The ``stripe_invoice`` table: the account's invoices as Stripe last told us (README
"Billing", "Invoices"), so the Invoices panel reads no vendor."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base


class StripeInvoice(Base):
    """One Stripe invoice (https://docs.stripe.com/api/invoices/object) of one account.

    Written only by ``api/billing/invoices.py`` (``mirror_invoice``), from Stripe's invoice
    webhooks, from what Stripe answered to the console's own charges, and by reconciliation:

    - ``id``: Stripe's (``in_...``); ``number`` as printed on it, when finalized;
    - ``created_at``: Stripe's ``created``; amounts in the smallest unit of ``currency``;
    - ``status``: Stripe's (``draft``, ``open``, ``paid``, ``uncollectible``, ``void``);
    - ``payment_failed_at``: when a payment of it last failed (``invoice.payment_failed``);
      with an ``open`` or ``uncollectible`` status, the invoice is past due;
    - ``synced_at``: as of when the row holds Stripe's state (an event's time, or when Stripe
      was read), which orders the writes of one status (``invoices.py``).
    """

    __tablename__ = "stripe_invoice"
    __table_args__ = (
        Index("ix_stripe_invoice_account_id_created_at", "account_id", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(255), primary_key=True)
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("account.id", ondelete="CASCADE"))
    number: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    currency: Mapped[str] = mapped_column(String(3))
    amount_due: Mapped[int] = mapped_column(Integer)
    amount_paid: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(20))
    hosted_invoice_url: Mapped[str | None] = mapped_column(Text)
    invoice_pdf: Mapped[str | None] = mapped_column(Text)
    payment_failed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    synced_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
