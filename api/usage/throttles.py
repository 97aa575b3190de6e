"""The metering intake's throttle and quota (README "Metering intake", "Sign-in and abuse
limits"), listed by api/usage/feature.py."""

from __future__ import annotations

from api.ratelimit import MINUTE_S, Quota, Throttle

METERING = Throttle(
    "metering",
    window_s=MINUTE_S,
    per_address="METERING_LIMIT_PER_ADDRESS",
    per_account="METERING_LIMIT_PER_ACCOUNT",
)
"""Metering batches per minute."""

METERING_RECORDS = Quota(
    "metering-records",
    unit="usage records",
    window_s=MINUTE_S,
    per_account="METERING_RECORDS_LIMIT_PER_ACCOUNT",
)
"""Usage records per account per minute, however they are batched; a refused batch counts
none."""
