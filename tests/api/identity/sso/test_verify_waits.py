"""Domain Verify waits on DNS holding no database connection and no row lock, and one API
process runs a bounded number of its lookups at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from api.models import SsoDomain
from devstack.app import create_dev_app
from devstack.stack import Stack
from tests.api.conftest import MakeUser, publish_txt, unique_domain


class GatedDns:
    """Holds every lookup of the app's resolver until :attr:`release` is set."""

    def __init__(self, resolve: Any) -> None:
        self._resolve = resolve
        self.waiting = 0
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.waiting += 1
        self.entered.set()
        await self.release.wait()
        return await self._resolve(*args, **kwargs)


@pytest.fixture
async def gated_app(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[FastAPI, GatedDns]]:
    app = create_dev_app(stack.with_settings(dns_lookups_per_replica=2))
    async with app.router.lifespan_context(app):
        dnspython = app.state.resources.dns_resolver._resolver
        gate = GatedDns(dnspython.resolve)
        monkeypatch.setattr(dnspython, "resolve", gate)
        yield app, gate


def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


async def _pending_domain(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    added = await client.post("/web/sso/domains", headers=headers, json={"domain": unique_domain()})
    assert added.status_code == 201, added.text
    domain: dict[str, Any] = added.json()["domain"]
    await publish_txt(client, domain["record"]["name"], domain["record"]["value"])
    return domain


def _verify(
    client: httpx.AsyncClient, headers: dict[str, str], domain: dict[str, Any]
) -> asyncio.Task[httpx.Response]:
    """Start Verify of ``domain`` as a task of its own."""
    return asyncio.create_task(
        client.post(f"/web/sso/domains/{domain['id']}/verify", headers=headers)
    )


async def test_verify_holds_no_connection_or_lock_while_dns_answers(
    gated_app: tuple[FastAPI, GatedDns], make_user: MakeUser
) -> None:
    app, gate = gated_app
    me = await make_user()
    async with _client(app) as client:
        domain = await _pending_domain(client, me.headers)
        verify = _verify(client, me.headers, domain)
        await asyncio.wait_for(gate.entered.wait(), 5)
        pool = app.state.resources.engine.pool
        in_use = pool.checkedout()
        # Another transaction may lock the row at once: Verify holds no lock on it.
        async with app.state.resources.engine.connect() as connection, connection.begin():
            locked = await connection.scalar(
                select(SsoDomain.id)
                .where(SsoDomain.id == domain["id"])
                .with_for_update(nowait=True)
            )
        gate.release.set()
        response = await verify
    assert in_use == 0
    assert str(locked) == domain["id"]
    assert response.status_code == 200, response.text
    assert response.json()["domain"]["state"] == "Verified"


async def test_lookups_past_the_cap_are_refused_at_once(
    gated_app: tuple[FastAPI, GatedDns], make_user: MakeUser
) -> None:
    app, gate = gated_app
    me = await make_user()
    async with _client(app) as client:
        domains = [await _pending_domain(client, me.headers) for _ in range(3)]
        running = [_verify(client, me.headers, d) for d in domains[:2]]
        for _ in range(100):
            if gate.waiting == 2:
                break
            await asyncio.sleep(0.05)
        refused = await _verify(client, me.headers, domains[2])
        gate.release.set()
        finished = await asyncio.gather(*running)
    assert refused.status_code == 429
    assert refused.json() == {
        "code": "RateLimited",
        "message": "Too many domain checks are running right now. Please try again in a "
        "few seconds.",
    }
    assert [r.status_code for r in finished] == [200, 200]
