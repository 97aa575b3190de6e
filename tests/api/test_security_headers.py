"""Issue 9: the guard that keeps the development stand-ins away from real vendors."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from api.devstack.stack import Stack
from api.main import create_app

# Production-like settings that point at the real vendors (no stand-ins, no database needed to
# serve the SPA, /web/config or the probes).
REAL_VENDORS: dict[str, object] = {
    "environment": "production",
    "dev_stand_ins": False,
    "public_url": "https://console.example.com",
    "cognito_endpoint": "",
    "cognito_hosted_ui_url": "https://auth.example.com",
    "stripe_api_base": "https://api.stripe.com",
    "stripe_js_url": "https://js.stripe.com/v3/",
}


class TestStandInGuard:
    """``DEV_STAND_INS`` refuses every setting that would reach a real vendor."""

    @pytest.mark.parametrize(
        ("setting", "value"),
        [
            ("cognito_endpoint", "https://cognito-idp.us-east-1.amazonaws.com"),
            ("cognito_hosted_ui_url", "https://auth.example.com"),
            ("stripe_api_base", "https://api.stripe.com"),
            ("stripe_js_url", "https://js.stripe.com/v3/"),
        ],
    )
    def test_vendor_url_must_be_loopback(self, stack: Stack, setting: str, value: str) -> None:
        settings = stack.with_settings(**{setting: value})
        with pytest.raises(ValueError, match=f"^{setting.upper()}=.*not a loopback address"):
            settings.check()

    def test_empty_cognito_endpoint_means_aws(self, stack: Stack) -> None:
        with pytest.raises(ValueError, match=r"^COGNITO_ENDPOINT is empty, which means real AWS"):
            stack.with_settings(cognito_endpoint="").check()

    @pytest.mark.parametrize("key", ["sk_live_51Abc", "rk_live_51Abc"])
    def test_live_secret_key_is_refused(self, stack: Stack, key: str) -> None:
        settings = stack.with_settings(stripe_secret_key=SecretStr(key))
        with pytest.raises(ValueError, match=r"^STRIPE_SECRET_KEY is a live Stripe key") as err:
            settings.check()
        assert key not in str(err.value)

    def test_live_keys_are_refused_in_development_without_stand_ins(self, stack: Stack) -> None:
        development = stack.with_settings(**{**REAL_VENDORS, "environment": "development"})
        development.check()  # real vendors with test keys: allowed in development
        with pytest.raises(ValueError, match=r"^STRIPE_SECRET_KEY is a live Stripe key"):
            development.model_copy(update={"stripe_secret_key": SecretStr("sk_live_1")}).check()
        with pytest.raises(ValueError, match=r"^STRIPE_PUBLISHABLE_KEY is a live Stripe key"):
            development.model_copy(update={"stripe_publishable_key": "pk_live_1"}).check()

    def test_create_app_refuses_before_mounting_anything(self, stack: Stack) -> None:
        with pytest.raises(ValueError, match=r"^STRIPE_API_BASE="):
            create_app(stack.with_settings(stripe_api_base="https://api.stripe.com"))

    @pytest.mark.parametrize(
        "url", ["http://localhost:4566", "http://127.0.0.2:4566", "http://[::1]:4566"]
    )
    def test_every_loopback_form_is_accepted(self, stack: Stack, url: str) -> None:
        stack.with_settings(
            cognito_endpoint=url, cognito_hosted_ui_url=url, stripe_api_base=url
        ).check()

    def test_production_may_use_live_keys(self, stack: Stack) -> None:
        stack.with_settings(**REAL_VENDORS, stripe_secret_key=SecretStr("sk_live_1")).check()
