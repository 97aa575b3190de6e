"""Issue 9: HEAD wherever GET works, ``Allow`` on every 405, and the guard that keeps the
development stand-ins away from real vendors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from api.devstack.stack import Stack
from api.main import create_app
from tests.api.conftest import MakeUser

INDEX_HTML = '<!doctype html><div id="root"></div><script type="module" src="/assets/app-1.js">'

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


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    """A built SPA: index.html and one hashed asset."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text(INDEX_HTML)
    (tmp_path / "assets" / "app-1.js").write_text("console.log(1)")
    return tmp_path


async def client_for(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@pytest.fixture
async def spa(stack: Stack, dist: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The dev-stack app (stand-ins on, localstripe's Stripe.js) serving ``dist``."""
    async for c in client_for(create_app(stack.with_settings(web_dist=str(dist)))):
        yield c


class TestHead:
    async def test_head_of_a_client_route_is_get_without_body(self, spa: httpx.AsyncClient) -> None:
        get = await spa.get("/login")
        head = await spa.head("/login")
        assert head.status_code == 200
        assert head.content == b""
        for name in ("content-type", "content-length", "cache-control"):
            assert head.headers[name] == get.headers[name], name

    @pytest.mark.parametrize("path", ["/web/config", "/healthz", "/readyz"])
    async def test_head_of_api_get_routes(self, client: httpx.AsyncClient, path: str) -> None:
        get = await client.get(path)
        head = await client.head(path)
        assert head.status_code == get.status_code == 200
        assert head.content == b""
        assert head.headers["content-type"] == get.headers["content-type"]
        assert head.headers["content-length"] == get.headers["content-length"]

    async def test_head_of_a_signed_in_read(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        head = await client.head("/web/session", headers=user.headers)
        assert head.status_code == 200
        assert head.content == b""
        assert (await client.head("/web/session")).status_code == 401


class TestMethodNotAllowed:
    async def test_405_lists_every_method_of_the_path(self, client: httpx.AsyncClient) -> None:
        # GET and PUT /web/account are two routes; Starlette alone would say "GET".
        response = await client.patch("/web/account", json={"name": "x"})
        assert response.status_code == 405
        assert response.json()["code"] == "MethodNotAllowed"
        assert response.headers["allow"] == "GET, HEAD, PUT"

    async def test_405_of_a_post_only_path(self, client: httpx.AsyncClient) -> None:
        for method in ("GET", "HEAD"):
            response = await client.request(method, "/web/session/sign-in")
            assert response.status_code == 405, method
            assert response.headers["allow"] == "POST"

    async def test_405_of_a_get_only_path(self, client: httpx.AsyncClient) -> None:
        response = await client.delete("/healthz")
        assert response.status_code == 405
        assert response.headers["allow"] == "GET, HEAD"


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
