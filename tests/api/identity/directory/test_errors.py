"""Every refusal under ``/scim/v2`` is a SCIM error (RFC 7644 3.12), including the ones no SCIM
route makes: a path or method the service does not have, a body over the limit, a database
that is gone. An identity provider parses ``status`` and ``detail``; it never sees the
console's ``{"code", "message"}`` envelope."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from structlog.testing import capture_logs

from api.identity.directory import service
from tests.api.conftest import terminate_database_connections
from tests.api.identity.directory.conftest import MakeDirectory, scim_error


async def test_a_path_the_service_does_not_have_is_a_scim_error(
    make_directory: MakeDirectory,
) -> None:
    directory = await make_directory()
    for path in ("/Devices", "/Users/a/b", "/Bulk"):
        response = await directory.request("GET", path)
        assert scim_error(response, 404) == f"No endpoint {path}"
    # Only reading is answered for any path; another method is told what the path allows.
    response = await directory.request("DELETE", "/Devices")
    scim_error(response, 405)
    assert response.headers["allow"] == "GET, HEAD"


async def test_a_method_the_service_does_not_have_is_a_scim_405_with_allow(
    make_directory: MakeDirectory,
) -> None:
    directory = await make_directory()
    response = await directory.request("PATCH", "/Users", {"schemas": []})
    scim_error(response, 405)
    assert response.headers["allow"] == "GET, HEAD, POST"


async def test_a_body_over_the_limit_is_a_scim_413(make_directory: MakeDirectory) -> None:
    directory = await make_directory()
    response = await directory.client.post(
        "/scim/v2/Users", headers=directory.headers, content=b"{" + b" " * 70_000 + b"}"
    )
    assert scim_error(response, 413).startswith("The request body is too large")


async def test_a_database_that_is_gone_is_a_scim_503_with_retry_after(
    app: FastAPI, make_directory: MakeDirectory
) -> None:
    directory = await make_directory()
    assert await terminate_database_connections(app) > 0
    try:
        response = await directory.request(
            "POST",
            "/Users",
            {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "x@dir.test"},
        )
        scim_error(response, 503)
        assert response.headers["retry-after"] == "2"
    finally:
        await app.state.resources.replace_pools()


async def test_a_defect_is_a_scim_500_and_logged(
    make_directory: MakeDirectory, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = await make_directory()

    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("a defect")

    monkeypatch.setattr(service, "list_users", broken)
    with capture_logs() as logs:
        response = await directory.request("GET", "/Users")
    assert scim_error(response, 500) == "Internal server error"
    [logged] = [entry for entry in logs if entry["event"] == "unhandled_error"]
    assert isinstance(logged["exc_info"], RuntimeError)


async def test_the_web_api_keeps_its_envelope(client: httpx.AsyncClient) -> None:
    response = await client.get("/web/nothing-here")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"code": "NotFound", "message": "Not Found"}
