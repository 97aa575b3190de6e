"""The account and its view (``GET /web/account``): what it brings to the app
(api/feature.py)."""

from __future__ import annotations

from api.account.router import router
from api.feature import Feature

FEATURE = Feature(name="account", routers=(router,))
