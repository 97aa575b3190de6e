"""``GET /web/config``: public settings the SPA needs at run time.

Served by the API so one SPA build works against any Stripe account. (The hosted sign-in
page's URL comes from ``POST /web/session/authorize``, which adds the state and PKCE
challenge of each attempt.)
"""

from fastapi import APIRouter

from api.kernel.errors import PayloadTooLarge, error_responses
from api.kernel.schemas import ApiModel
from api.principal.dependencies import Permit, SettingsDep
from api.principal.roles import Permission

router = APIRouter(prefix="/web", tags=["config"])


class StripeConfig(ApiModel):
    """Stripe.js: the publishable key and the script URL."""

    publishable_key: str
    js_url: str


class WebConfigResponse(ApiModel):
    """``GET /web/config`` body."""

    stripe: StripeConfig


@router.get(
    "/config",
    response_model=WebConfigResponse,
    # Reads nothing but settings; a body over the limit is refused before it (api/body_limits).
    responses=error_responses(PayloadTooLarge, database=False),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def get_config(settings: SettingsDep) -> WebConfigResponse:
    """Public, unauthenticated client configuration."""
    return WebConfigResponse(
        stripe=StripeConfig(
            publishable_key=settings.stripe.publishable_key, js_url=settings.stripe.js_url
        ),
    )
