"""PostgreSQL drops the API's connections (a restart, a failover, pg_terminate_backend):
reads carry on, writes answer 503 with nothing half-written, never a 500 (README "Configuration
(production)")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from tests.api.conftest import MakeUser


@pytest.fixture(autouse=True)
async def _fresh_pool_afterwards(app: FastAPI) -> AsyncIterator[None]:
    # The app is shared with the other tests, some of which use its engine directly (not
    # through requests, which recover by themselves): leave them a pool of live connections.
    yield
    await app.state.resources.engine.dispose()
    # The side pool's connections (rate-limit counters) were terminated too.
    await app.state.resources.side_engine.dispose()


async def _terminate_the_apis_connections(app: FastAPI) -> int:
    """What an administrator or a failover does: end every other backend of the database."""
    url = make_url(app.state.settings.database_url).set(drivername="postgresql")
    admin = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        terminated = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()
    return int(terminated)


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
    assert await _terminate_the_apis_connections(app) > 0
    for more in await traffic:
        statuses += more
    statuses += await burst()
    assert statuses == [200] * len(statuses)


async def test_a_write_on_a_dead_connection_is_503_and_keeps_nothing(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> None:
    me = await make_user(account_name="Before")
    assert (await client.get("/web/account", headers=me.headers)).status_code == 200
    assert await _terminate_the_apis_connections(app) > 0
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
    assert await _terminate_the_apis_connections(app) > 0
    assert (await client.get("/readyz")).json() == {"status": "ready"}
