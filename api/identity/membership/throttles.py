"""The invitations' throttle (README "Sign-in and abuse limits"): User Management's
invitations (api/identity/users) and a directory's (api/identity/directory) count it, so it is
declared here, below both, and listed by api/identity/membership/feature.py. The daily cap per
recipient is ``api.ratelimit.count_invitation``."""

from __future__ import annotations

from api.ratelimit import HOUR_S, Throttle

INVITATION = Throttle(
    "invitation",
    window_s=HOUR_S,
    per_address="INVITE_LIMIT_PER_ADDRESS",
    per_account="INVITE_LIMIT_PER_ACCOUNT",
)
"""Invitations (and re-sends) per hour: per client address and per account (a directory's per
account only, its requests coming from servers many accounts share)."""
