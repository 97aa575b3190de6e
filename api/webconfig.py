"""``GET /web/config``: public settings the SPA needs at run time.

Served by the API so one SPA build works against any pool, app client and Stripe account
(the dev stack's pool and client ids differ from production's).
"""

from fastapi import APIRouter

from api.deps import SettingsDep
from api.schemas import ApiModel

router = APIRouter(prefix="/web", tags=["config"])


class IdentityProviderConfig(ApiModel):
    """Where /oauth/google/login and /oauth/github/login send the browser (SPEC 2)."""

    authorize_url: str
    client_id: str


class StripeConfig(ApiModel):
    """Stripe.js: the publishable key and the script URL."""

    publishable_key: str
    js_url: str


class WebConfig(ApiModel):
    """``GET /web/config`` body."""

    identity_provider: IdentityProviderConfig
    stripe: StripeConfig


@router.get("/config", response_model=WebConfig)
async def get_config(settings: SettingsDep) -> WebConfig:
    """Public, unauthenticated client configuration."""
    return WebConfig(
        identity_provider=IdentityProviderConfig(
            authorize_url=settings.cognito_hosted_ui_url.rstrip("/") + "/oauth2/authorize",
            client_id=settings.cognito_client_id,
        ),
        stripe=StripeConfig(
            publishable_key=settings.stripe_publishable_key, js_url=settings.stripe_js_url
        ),
    )
