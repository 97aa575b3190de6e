"""Two-step sign-in's throttle (README "Sign-in and abuse limits"), listed by
api/identity/mfa/feature.py; its codes also count as password attempts
(``api.principal.dependencies.PASSWORD_ATTEMPTS``)."""

from __future__ import annotations

from api.ratelimit import HOUR_S, Throttle

TWO_STEP_SETUP = Throttle(
    "two-step-setup",
    window_s=HOUR_S,
    per_address="TWO_STEP_SETUP_LIMIT_PER_ADDRESS",
    per_account="TWO_STEP_SETUP_LIMIT_PER_ACCOUNT",
)
"""Two-step sign-in set-ups started (AssociateSoftwareToken) or confirmed, per hour."""
