"""Running several replicas (README "Running replicas"): migrations under a lock, readiness on the
schema, and the graceful shutdown of ``python -m api.app.commands.serve``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from alembic import command
from alembic.script import ScriptDirectory

from api.app.web import create_app
from api.kernel.migrations import alembic_config, head_revision
from devstack.replicas import Replica, replica_environment
from devstack.services import ROOT, connect, random_suffix
from devstack.stack import Stack
from tests.api.conftest import MakeUser


@pytest.fixture
def empty_database(stack: Stack) -> Iterator[str]:
    """A database of its own with no schema; its URL."""
    name = f"console_replicas_{random_suffix()}"
    url = stack.postgres.create_database(name)
    try:
        yield url
    finally:
        stack.postgres.drop_database(name)


async def _fetch(url: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    connection = await connect(url)
    try:
        return list(await connection.fetch(sql, *args))
    finally:
        await connection.close()


def test_replicas_starting_together_migrate_once(empty_database: str) -> None:
    env = {**os.environ, "DATABASE_URL": empty_database}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "api.app.commands.migrate"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for _ in range(4)
    ]
    outputs = [run.communicate(timeout=120)[0].decode() for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0, 0], outputs
    # Exactly one process ran the migrations; the others found the schema at head.
    migrated = [out for out in outputs if "Running upgrade  -> " in out]
    assert len(migrated) == 1, outputs
    assert all(f"schema at {head_revision()}" in out for out in outputs)
    rows = asyncio.run(_fetch(empty_database, "SELECT version_num FROM alembic_version"))
    assert [r["version_num"] for r in rows] == [head_revision()]


async def _readyz(stack: Stack, database_url: str) -> httpx.Response:
    app = create_app(stack.with_settings(database_url=database_url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get("/readyz")


async def test_readyz_refuses_a_schema_behind_the_code_until_migrated(
    stack: Stack, empty_database: str
) -> None:
    never_migrated = await _readyz(stack, empty_database)
    assert never_migrated.status_code == 503
    assert never_migrated.json() == {
        "code": "SchemaBehind",
        "message": f"The database schema is at no revision, this release needs {head_revision()}:"
        " run `python -m api.app.commands.migrate`.",
    }

    config = alembic_config(empty_database)
    previous = ScriptDirectory.from_config(config).get_revision(head_revision()).down_revision
    await asyncio.to_thread(command.upgrade, config, str(previous))
    behind = await _readyz(stack, empty_database)
    assert behind.status_code == 503 and behind.json()["code"] == "SchemaBehind"
    assert "this release needs" in behind.json()["message"]

    await asyncio.to_thread(command.upgrade, config, "head")
    assert (await _readyz(stack, empty_database)).json() == {"status": "ready"}


async def test_a_schema_ahead_of_the_code_is_served(stack: Stack, empty_database: str) -> None:
    """During a rolling deploy the new release migrates first; old replicas keep serving."""
    await asyncio.to_thread(command.upgrade, alembic_config(empty_database), "head")
    await _fetch(empty_database, "UPDATE alembic_version SET version_num = 'f00dfeed0001'")
    assert (await _readyz(stack, empty_database)).json() == {"status": "ready"}


def _batch(platform: str = "api", credits: int = 2) -> dict[str, Any]:
    record = {
        "idempotencyKey": str(uuid.uuid4()),
        "platform": platform,
        "runs": 1,
        "credits": credits,
        "time": datetime.now(UTC).isoformat(),
    }
    return {"records": [record]}


async def test_sigterm_drains_finishes_in_flight_requests_and_exits_0(
    stack: Stack, make_user: MakeUser, tmp_path: Path
) -> None:
    owner = await make_user()
    headers = {"X-API-Key": owner.api_key}
    env = replica_environment(
        stack, "http://127.0.0.1", SHUTDOWN_DRAIN_S="1.5", SHUTDOWN_GRACE_S="20"
    )
    replica = Replica("graceful", env, tmp_path)
    replica.start()
    try:
        await asyncio.to_thread(replica.wait_ready)
        async with httpx.AsyncClient(base_url=replica.url, timeout=30) as client:
            first = await client.post("/metering/usage", json=_batch(), headers=headers)
            assert first.json() == {"accepted": 1, "duplicates": 0}

            # Hold the account's usage rollup: the next batch waits on it, in flight.
            blocker = await connect(stack.settings.database_url)
            lock = blocker.transaction()
            await lock.start()
            await blocker.execute(
                "SELECT * FROM usage WHERE account_id = $1 FOR UPDATE", owner.account.id
            )
            in_flight = asyncio.create_task(
                client.post("/metering/usage", json=_batch(), headers=headers)
            )
            await asyncio.sleep(0.5)
            assert not in_flight.done()

            replica.signal(signal.SIGTERM)
            await asyncio.sleep(0.3)
            async with httpx.AsyncClient(base_url=replica.url, timeout=5) as fresh:
                draining = await fresh.get("/readyz")
            assert draining.status_code == 503
            assert draining.json()["code"] == "ShuttingDown"

            # After the drain the replica stops listening; the request is still served.
            await asyncio.sleep(1.7)
            with pytest.raises(httpx.ConnectError):
                async with httpx.AsyncClient(base_url=replica.url, timeout=5) as late:
                    await late.get("/healthz")
            assert not in_flight.done()
            await lock.commit()
            await blocker.close()
            response = await in_flight
        assert response.status_code == 200
        assert response.json() == {"accepted": 1, "duplicates": 0}
        assert await asyncio.to_thread(replica.wait, 30) == 0, replica.tail()
    finally:
        replica.stop()
