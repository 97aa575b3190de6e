"""Billing's throttles (README "Sign-in and abuse limits"), listed by api/billing/feature.py."""

from __future__ import annotations

from api.ratelimit import HOUR_S, Throttle

PAYMENT_METHOD = Throttle(
    "payment-method",
    window_s=HOUR_S,
    per_address="CARD_LIMIT_PER_ADDRESS",
    per_account="CARD_LIMIT_PER_ACCOUNT",
)
"""Payment-method changes (card testing) per hour."""

INVOICES = Throttle(
    "invoices",
    window_s=HOUR_S,
    per_address="INVOICES_LIMIT_PER_ADDRESS",
    per_account="INVOICES_LIMIT_PER_ACCOUNT",
)
"""Invoice list pages (each asks Stripe) per hour."""
