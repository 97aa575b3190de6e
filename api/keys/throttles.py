"""The API key's throttle (README "Sign-in and abuse limits"), listed by api/keys/feature.py."""

from __future__ import annotations

from api.ratelimit import HOUR_S, Throttle

API_KEY = Throttle(
    "api-key",
    window_s=HOUR_S,
    per_address="API_KEY_LIMIT_PER_ADDRESS",
    per_account="API_KEY_LIMIT_PER_ACCOUNT",
)
"""API key reveals and rolls (each shows a secret) per hour."""
