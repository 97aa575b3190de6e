"""User Management (the account's users, invitations): what it brings to the app
(api/feature.py). Its invitations count the membership feature's throttle."""

from __future__ import annotations

from api.feature import Feature
from api.identity.users.router import member_sessions_router, router

FEATURE = Feature(name="users", routers=(router, member_sessions_router))
