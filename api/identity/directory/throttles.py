"""The SCIM service's throttle (README "Directory sync (SCIM)"), listed by
api/identity/directory/feature.py."""

from __future__ import annotations

from api.ratelimit import MINUTE_S, Throttle

SCIM = Throttle("scim", window_s=MINUTE_S, per_account="SCIM_LIMIT_PER_ACCOUNT")
"""SCIM requests per account per minute, all its tokens together (an identity provider's full
sync of a large directory stays under it); not per address: identity providers send from
servers many accounts share."""
