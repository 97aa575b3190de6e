"""Two-step sign-in: what it brings to the app (api/feature.py). Its codes count as password
attempts, which the sign-in feature declares."""

from __future__ import annotations

from api.feature import Feature
from api.identity.mfa.router import router, users_router
from api.identity.mfa.throttles import TWO_STEP_SETUP

FEATURE = Feature(name="two-step", routers=(router, users_router), throttles=(TWO_STEP_SETUP,))
