"""``GET /web/config``: public settings the SPA needs at run time.

Served by the API so one SPA build works against any Stripe account. (The hosted sign-in
page's URL comes from ``POST /web/session/authorize``, which adds the state and PKCE
challenge of each attempt.)
"""

from fastapi import APIRouter

from api.deps import SettingsDep
from api.schemas import ApiModel

router = APIRouter(prefix="/web", tags=["config"])


class StripeConfig(ApiModel):
    """Stripe.js: the publishable key and the script URL."""

    publishable_key: str
    js_url: str


class WebConfigResponse(ApiModel):
    """``GET /web/config`` body."""

    stripe: StripeConfig


@router.get("/config", response_model=WebConfigResponse)
async def get_config(settings: SettingsDep) -> WebConfigResponse:
    """Public, unauthenticated client configuration."""
    return WebConfigResponse(
        stripe=StripeConfig(
            publishable_key=settings.stripe_publishable_key, js_url=settings.stripe_js_url
        ),
    )
