"""The sign-in routes' throttles (README "Sign-in and abuse limits"), listed by
api/identity/sign_in/feature.py; the password attempts' own is
``api.principal.dependencies.PASSWORD_ATTEMPTS`` (two-step sign-in counts it too)."""

from __future__ import annotations

from api.ratelimit import HOUR_S, Throttle

REGISTRATION = Throttle(
    "registration", window_s=HOUR_S, per_address="REGISTRATION_LIMIT_PER_ADDRESS"
)
"""Registrations (each creates a pool user and an account) per client address per hour."""

EMAIL_VERIFICATION = Throttle(
    "email-verification",
    window_s=HOUR_S,
    per_address="EMAIL_VERIFICATION_LIMIT_PER_ADDRESS",
    per_account="EMAIL_VERIFICATION_LIMIT_PER_ACCOUNT",
)
"""Email verification codes sent (each emails the address) or entered, per hour."""

SESSION_TOKEN = Throttle(
    "session-token", window_s=HOUR_S, per_address="SESSION_TOKEN_LIMIT_PER_ADDRESS"
)
"""Hosted-UI code exchanges (each asks Cognito) per client address per hour."""

SESSION_REFRESH = Throttle(
    "session-refresh", window_s=HOUR_S, per_address="SESSION_REFRESH_LIMIT_PER_ADDRESS"
)
"""Token refreshes (each asks Cognito) per client address per hour."""

SSO_ACCOUNTS = Throttle(
    "sso-accounts", window_s=HOUR_S, per_address="SSO_ACCOUNTS_LIMIT_PER_ADDRESS"
)
"""Joinable-account lookups ('Sign in with SSO' included; each asks Cognito) per client
address per hour."""
