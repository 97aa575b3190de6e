"""Health probes, the error envelope, the SPA fallback and vendor outages."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import respx

from api.adapters.cognito import CognitoClient, CognitoUnavailable, NotAuthorizedError
from api.app.web import create_app
from devstack.stack import Stack


async def test_healthz_and_readyz(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    assert (await client.get("/readyz")).json() == {"status": "ready"}


async def test_readyz_is_503_without_database(stack: Stack) -> None:
    app = create_app(
        stack.with_settings(database_url="postgresql+asyncpg://nobody@127.0.0.1:1/none")
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["code"] == "DatabaseUnavailable"


async def test_every_response_carries_a_request_id(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz", headers={"X-Request-ID": "abc123"})
    assert response.headers["x-request-id"] == "abc123"
    assert len((await client.get("/healthz")).headers["x-request-id"]) == 32


async def test_unknown_route_uses_the_envelope(client: httpx.AsyncClient) -> None:
    response = await client.get("/web/nothing-here")
    assert response.status_code == 404
    assert response.json() == {"code": "NotFound", "message": "Not Found"}


async def test_spa_fallback_serves_index_for_client_routes(stack: Stack, tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<div id=root></div>")
    (tmp_path / "assets" / "app-123.js").write_text("console.log(1)")
    (tmp_path / "config.js").write_text("window.__CONSOLE_CONFIG__ = {};")
    app = create_app(stack.with_settings(web_dist=str(tmp_path)))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        page = await client.get("/users")
        asset = await client.get("/assets/app-123.js")
        runtime_config = await client.get("/config.js")
        api_miss = await client.get("/web/unknown")
    assert page.status_code == 200 and "root" in page.text
    assert page.headers["cache-control"] == "no-cache"
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    # The run-time configuration is replaced at deploy time: never cached without asking.
    assert runtime_config.text == "window.__CONSOLE_CONFIG__ = {};"
    assert runtime_config.headers["cache-control"] == "no-cache"
    assert api_miss.status_code == 404 and api_miss.json()["code"] == "NotFound"


class TestCognitoOutage:
    async def test_unreachable_cognito_is_unavailable(self) -> None:
        client = CognitoClient(
            base_url="http://127.0.0.1:1", region="us-east-1", user_pool_id="p", client_id="c"
        )
        with pytest.raises(CognitoUnavailable):
            await client.refresh("a-refresh-token")
        await client.aclose()

    @respx.mock
    async def test_5xx_is_unavailable_and_4xx_is_typed(self) -> None:
        client = CognitoClient(
            base_url="http://cognito.test", region="us-east-1", user_pool_id="p", client_id="c"
        )
        route = respx.post("http://cognito.test/")
        route.respond(503)
        with pytest.raises(CognitoUnavailable):
            await client.refresh("a-refresh-token")
        route.respond(400, json={"__type": "NotAuthorizedException", "message": "Nope"})
        with pytest.raises(NotAuthorizedError) as caught:
            await client.refresh("a-refresh-token")
        assert caught.value.message == "Nope"
        await client.aclose()

    async def test_sign_in_during_an_outage_is_503(self, stack: Stack) -> None:
        app = create_app(stack.with_settings(cognito_endpoint="http://127.0.0.1:1"))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                response = await client.post(
                    "/web/session/sign-in", json={"email": "a@b.com", "password": "x"}
                )
        assert response.status_code == 503
        assert response.json()["code"] == "VendorUnavailable"


async def test_cors_only_for_configured_origins(stack: Stack) -> None:
    app = create_app(stack.with_settings(cors_allowed_origins=["https://console.example.com"]))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        allowed = await client.options(
            "/web/account",
            headers={
                "Origin": "https://console.example.com",
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "authorization",
            },
        )
        other = await client.options(
            "/web/account",
            headers={
                "Origin": "https://evil.example.net",
                "Access-Control-Request-Method": "GET",
            },
        )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://console.example.com"
    assert "access-control-allow-origin" not in other.headers


async def test_a_body_that_is_not_json_is_a_422(client: httpx.AsyncClient) -> None:
    # Broken JSON, and bytes that are not even text (FastAPI's own undocumented 400 "There
    # was an error parsing the body"), are the documented 422 like any malformed request.
    for body in (b'{"email": ', b"\x80 not utf-8"):
        response = await client.post(
            "/web/session/sign-in", content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422, body
        assert response.json() == {
            "code": "ValidationError",
            "message": "The request body is not valid JSON",
            "fields": [{"field": "body", "message": "The request body is not valid JSON"}],
        }
