"""Access tokens for automation (README "Automation"): what the feature brings to the app and
the worker (api/feature.py): its management routes, each token's own request limit, and the
emails about tokens that expire."""

from __future__ import annotations

import structlog

from api.feature import Feature, PeriodicTask
from api.identity.access_tokens.expiry import send_expiry_notices
from api.identity.access_tokens.router import policy_router, router
from api.principal.access_tokens import REQUESTS
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)


async def access_token_expiry(resources: JobResources) -> None:
    """One pass of the expiry emails (api/identity/access_tokens/expiry.py)."""
    log.info("access_token_expiry", emails=await send_expiry_notices(resources.sessionmaker))


FEATURE = Feature(
    name="access-tokens",
    routers=(router, policy_router),
    throttles=(REQUESTS,),
    periodic=(
        PeriodicTask("access_token_expiry", "ACCESS_TOKEN_EXPIRY_CRON", access_token_expiry),
    ),
)
