"""API keys: what they bring to the app (api/feature.py)."""

from __future__ import annotations

from api.feature import Feature
from api.keys.router import router
from api.keys.throttles import API_KEY

FEATURE = Feature(name="keys", routers=(router,), throttles=(API_KEY,))
