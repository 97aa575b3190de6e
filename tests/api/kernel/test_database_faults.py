"""PostgreSQL drops the API's connections (a restart, a failover, pg_terminate_backend):
reads carry on, writes answer 503 with nothing half-written, never a 500 (README "Configuration
(production)")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from tests.api.conftest import MakeUser, terminate_database_connections


@pytest.fixture(autouse=True)
async def _fresh_pool_afterwards(app: FastAPI) -> AsyncIterator[None]:
    # The app is shared with the other tests, some of which use its engine directly (not
    # through requests, which recover by themselves): leave them a pool of live connections.
    yield
    await app.state.resources.replace_pools()


async def test_reads_under_traffic_survive_terminated_connections(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    me = await make_user()
    paths = ["/web/session", "/web/account"]

    async def burst() -> list[int]:
        responses = await asyncio.gather(
            *(client.get(paths[i % 2], headers=me.headers) for i in range(16))
        )
        return [r.status_code for r in responses]

    statuses = await burst()  # the pool holds open connections now
    traffic = asyncio.gather(*(burst() for _ in range(6)))
    await asyncio.sleep(0)
    assert await terminate_database_connections(app) > 0
    for more in await traffic:
        statuses += more
    statuses += await burst()
    assert statuses == [200] * len(statuses)


async def test_a_write_on_a_dead_connection_is_503_and_keeps_nothing(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    me = await make_user(account_name="Before")
    assert (await client.get("/web/account", headers=me.headers)).status_code == 200
    assert await terminate_database_connections(app) > 0
    response = await client.put("/web/account", json={"name": "After"}, headers=me.headers)
    assert response.status_code == 503
    assert response.json() == {
        "code": "DatabaseUnavailable",
        "message": "The database is not reachable right now. Please try again shortly.",
    }
    assert response.headers["retry-after"] == "2"
    account = (await client.get("/web/account", headers=me.headers)).json()["account"]
    assert account["name"] == "Before"
    # The pool has retired its dead connections: the next write goes through.
    again = await client.put("/web/account", json={"name": "After"}, headers=me.headers)
    assert again.status_code == 200


async def test_readyz_is_ready_again_at_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    assert (await client.get("/readyz")).status_code == 200
    assert await terminate_database_connections(app) > 0
    assert (await client.get("/readyz")).json() == {"status": "ready"}
