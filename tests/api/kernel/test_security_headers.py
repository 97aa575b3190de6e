"""Security headers on every response, HEAD wherever GET works, ``Allow`` on every 405,
and the guard that keeps the development stand-ins away from real vendors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import SecretStr

from api.app.web import create_app
from devstack.app import create_dev_app
from devstack.stack import Stack
from tests.api.conftest import MakeUser

API_POLICY = "default-src 'none'; frame-ancestors 'none'"
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


def directives(policy: str) -> dict[str, list[str]]:
    """``"a x y; b z"`` -> ``{"a": ["x", "y"], "b": ["z"]}``."""
    parsed = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        parsed[name] = sources
    return parsed


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


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
    async for c in client_for(create_dev_app(stack.with_settings(web_dist=str(dist)))):
        yield c


@pytest.fixture
async def production_spa(stack: Stack, dist: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A production app on https with the real vendors' URLs, serving ``dist``."""
    settings = stack.with_settings(**REAL_VENDORS, web_dist=str(dist))
    async for c in client_for(create_app(settings)):
        yield c


def assert_common_headers(response: httpx.Response) -> None:
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert response.headers["x-frame-options"] == "DENY"


class TestJsonResponses:
    async def test_json_gets_the_api_policy_and_no_hsts_over_http(
        self, client: httpx.AsyncClient
    ) -> None:
        response = await client.get("/healthz")
        assert response.status_code == 200
        assert_common_headers(response)
        assert response.headers["content-security-policy"] == API_POLICY
        assert "strict-transport-security" not in response.headers

    async def test_errors_carry_the_headers_too(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/web/account")
        assert response.status_code == 401
        assert_common_headers(response)
        assert response.headers["content-security-policy"] == API_POLICY
        assert response.headers["cache-control"] == "no-store"

    async def test_an_unexpected_500_carries_the_headers(self, stack: Stack) -> None:
        app = create_app(stack.settings)

        @app.get("/boom")
        async def boom() -> None:
            raise RuntimeError("boom")

        async for c in client_for(app):
            response = await c.get("/boom")
        assert response.status_code == 500
        assert response.json()["code"] == "InternalError"
        assert_common_headers(response)
        assert response.headers["content-security-policy"] == API_POLICY

    async def test_hsts_only_when_the_public_url_is_https(
        self, client: httpx.AsyncClient, production_spa: httpx.AsyncClient
    ) -> None:
        assert "strict-transport-security" not in (await client.get("/healthz")).headers
        response = await production_spa.get("/healthz")
        assert response.headers["strict-transport-security"] == (
            "max-age=63072000; includeSubDomains"
        )


class TestCaching:
    async def test_session_and_account_are_never_stored(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        user = await make_user()
        session = await client.get("/web/session", headers=user.headers)
        account = await client.get("/web/account", headers=user.headers)
        assert session.status_code == account.status_code == 200
        assert account.json()["account"]["apiKey"]
        assert session.headers["cache-control"] == "no-store"
        assert account.headers["cache-control"] == "no-store"

    async def test_config_may_be_cached(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/web/config")
        assert response.status_code == 200
        assert "cache-control" not in response.headers
        assert response.headers["content-security-policy"] == API_POLICY

    async def test_a_handlers_own_cache_control_is_kept(self, stack: Stack) -> None:
        app = create_app(stack.settings)

        @app.get("/web/cached")
        async def cached() -> JSONResponse:
            return JSONResponse({}, headers={"Cache-Control": "private, max-age=60"})

        async for c in client_for(app):
            response = await c.get("/web/cached")
        assert response.headers.get_list("cache-control") == ["private, max-age=60"]

    async def test_hashed_assets_stay_immutable(self, spa: httpx.AsyncClient) -> None:
        response = await spa.get("/assets/app-1.js")
        assert response.status_code == 200
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert_common_headers(response)


class TestSpaDocument:
    async def test_dev_policy_allows_only_self_and_localstripe(
        self, spa: httpx.AsyncClient, stack: Stack
    ) -> None:
        response = await spa.get("/billing")
        assert response.status_code == 200 and 'id="root"' in response.text
        assert_common_headers(response)
        assert response.headers["cache-control"] == "no-cache"
        localstripe = origin(stack.settings.stripe.js_url)
        assert directives(response.headers["content-security-policy"]) == {
            "default-src": ["'self'"],
            "script-src": ["'self'", localstripe],
            "frame-src": ["'self'", localstripe],
            "connect-src": ["'self'", localstripe],
            "img-src": ["'self'", "data:"],
            "style-src": ["'self'"],
            "object-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'", "http://testserver"],
            "frame-ancestors": ["'none'"],
        }

    async def test_production_policy_names_stripe_and_the_hosted_ui(
        self, production_spa: httpx.AsyncClient
    ) -> None:
        response = await production_spa.get("/login")
        assert response.status_code == 200
        policy = directives(response.headers["content-security-policy"])
        assert policy["script-src"] == ["'self'", "https://js.stripe.com"]
        assert policy["frame-src"] == [
            "'self'",
            "https://js.stripe.com",
            "https://hooks.stripe.com",
        ]
        assert policy["connect-src"] == ["'self'", "https://api.stripe.com"]
        assert policy["form-action"] == ["'self'", "https://auth.example.com"]
        assert "'unsafe-inline'" not in response.headers["content-security-policy"]
        assert response.headers["strict-transport-security"]


class TestStandIns:
    async def test_hosted_ui_page_gets_its_own_scriptless_policy(
        self, client: httpx.AsyncClient, stack: Stack
    ) -> None:
        response = await client.get(
            "/oauth2/authorize",
            params={
                "response_type": "code",
                "client_id": stack.settings.cognito.client_id,
                "redirect_uri": "http://testserver/oauth/sso",
                "state": "s-1",
                "code_challenge": "c" * 43,
                "code_challenge_method": "S256",
            },
        )
        assert response.status_code == 200 and "<style>" in response.text
        policy = directives(response.headers["content-security-policy"])
        assert policy["default-src"] == ["'none'"]
        assert policy["style-src"] == ["'unsafe-inline'"]
        assert "script-src" not in policy
        assert policy["frame-ancestors"] == ["'none'"]
        assert response.headers["cache-control"] == "no-store"

    async def test_mailbox_is_never_stored(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/dev/mailbox")
        assert response.status_code == 200
        assert response.headers["cache-control"] == "no-store"


class TestHead:
    async def test_head_of_a_client_route_is_get_without_body(self, spa: httpx.AsyncClient) -> None:
        get = await spa.get("/login")
        head = await spa.head("/login")
        assert head.status_code == 200
        assert head.content == b""
        for name in ("content-type", "content-length", "cache-control", "content-security-policy"):
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
        assert head.headers["cache-control"] == "no-store"
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

    async def test_the_spa_fallback_never_answers_an_api_path(self, spa: httpx.AsyncClient) -> None:
        # With the SPA served, its GET catch-all must not add GET to an API path's methods.
        options = await spa.options("/web/registration")
        assert options.status_code == 405
        assert options.headers["allow"] == "POST"
        unknown = await spa.post("/web/no-such-thing")
        assert unknown.status_code == 404
        assert unknown.json()["code"] == "NotFound"
        assert (await spa.get("/users")).status_code == 200  # a client route still is the SPA

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
            ("cognito_hosted_ui_url", ""),
            ("stripe_api_base", "https://api.stripe.com"),
            ("stripe_js_url", "https://js.stripe.com/v3/"),
            ("smtp_host", "email-smtp.us-east-1.amazonaws.com"),
            ("smtp_host", ""),
        ],
    )
    def test_vendor_url_must_be_loopback(self, stack: Stack, setting: str, value: str) -> None:
        settings = stack.with_settings(**{setting: value})
        with pytest.raises(ValueError, match=f"^{setting.upper()}=.*not a loopback address"):
            settings.check()

    def test_smtp_in_clear_only_to_loopback(self, stack: Stack) -> None:
        # Without TLS the SMTP password and every message cross the network in clear text.
        settings = stack.with_settings(
            dev_stand_ins=False, smtp_security="none", smtp_host="smtp.example.com"
        )
        with pytest.raises(ValueError, match=r"^SMTP_SECURITY=none"):
            settings.check()
        stack.with_settings(dev_stand_ins=False, smtp_security="none").check()  # loopback

    @pytest.mark.parametrize("nameservers", [[], ["8.8.8.8"], ["127.0.0.1", "10.0.0.2"]])
    def test_dns_nameservers_must_be_loopback(self, stack: Stack, nameservers: list[str]) -> None:
        # Anyone may set TXT records in the stand-in: it must never be a real resolver.
        settings = stack.with_settings(dns_nameservers=nameservers)
        with pytest.raises(ValueError, match=r"^DNS_NAMESERVERS=.*not a list of loopback"):
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
            development.updated(stripe_secret_key=SecretStr("sk_live_1")).check()
        with pytest.raises(ValueError, match=r"^STRIPE_PUBLISHABLE_KEY is a live Stripe key"):
            development.updated(stripe_publishable_key="pk_live_1").check()

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
