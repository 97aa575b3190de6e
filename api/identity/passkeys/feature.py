"""Passkeys (README "Passkeys"): what the feature brings to the app (api/feature.py), the
``/web/passkeys`` routes. Passkey sign-in is a sign-in flow (api/identity/sign_in)."""

from __future__ import annotations

from api.feature import Feature
from api.identity.passkeys.router import registration_router, router

FEATURE = Feature(name="passkeys", routers=(router, registration_router))
