"""Request bodies are limited per route, with a 413 before the body is read in full
(abuse controls)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from tests.api.conftest import MakeUser

TOO_LARGE = {"code": "PayloadTooLarge", "message": "The request body is too large"}


async def test_a_web_body_over_64_kib_is_413(client: httpx.AsyncClient) -> None:
    body = b'{"email": "' + b"a" * (64 * 1024) + b'", "password": "x"}'
    response = await client.post(
        "/web/session/sign-in", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json() == TOO_LARGE, (response.headers, response.text)


async def test_a_streamed_body_is_cut_off_at_the_limit(client: httpx.AsyncClient) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        nonlocal sent
        yield b'{"email": "'
        for _ in range(1000):
            sent += 1
            yield b"a" * 1024

    response = await client.post(
        "/web/session/sign-in", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json() == TOO_LARGE
    assert sent < 100  # refused near 64 KiB, not after reading the whole megabyte


async def test_a_metering_batch_may_be_larger_but_not_over_1_mib(
    client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    me = await make_user()
    headers = {"X-API-Key": me.api_key, "Content-Type": "application/json"}
    record = (
        b'{"idempotencyKey": "%s", "platform": "web", "runs": 1, "credits": 1, '
        b'"time": "2026-11-01T00:00:00Z", "padding": "' + b"x" * 180 + b'"}'
    )
    big = b'{"records": [' + b", ".join(record % str(i).encode() for i in range(1000)) + b"]}"
    assert 64 * 1024 < len(big) < 1024 * 1024
    accepted = await client.post("/metering/usage", content=big, headers=headers)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json() == {"accepted": 1000, "duplicates": 0}
    huge = b'{"records": [], "padding": "' + b"x" * (1024 * 1024) + b'"}'
    refused = await client.post("/metering/usage", content=huge, headers=headers)
    assert refused.status_code == 413
    assert refused.json() == TOO_LARGE
