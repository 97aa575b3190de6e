"""Access tokens for automation (README "Automation"): what the feature brings to the app
(api/feature.py): its management routes and each token's own request limit."""

from __future__ import annotations

from api.feature import Feature
from api.identity.access_tokens.router import router
from api.principal.access_tokens import REQUESTS

FEATURE = Feature(name="access-tokens", routers=(router,), throttles=(REQUESTS,))
