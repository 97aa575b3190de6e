"""Directory sync (SCIM, and its tokens and groups in User Management): what it brings to
the app (api/feature.py). Its invitations count the membership feature's throttle."""

from __future__ import annotations

from api.feature import Feature
from api.identity.directory.router import groups_web_router, router, web_router
from api.identity.directory.throttles import SCIM

FEATURE = Feature(
    name="directory", routers=(web_router, groups_web_router, router), throttles=(SCIM,)
)
