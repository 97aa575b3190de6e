"""Prometheus metrics (api/kernel/http/metrics.py, api/app/jobs/metrics.py, README "Background
work"):
the API's per route template, in flight and pool use, served on a port of their own; the
worker's queue, attempts and readiness; and ``python -m api.app.commands.queue``."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from starlette.types import Receive, Scope, Send

from api.app.commands.queue import render
from api.app.jobs.metrics import WorkerMetrics
from api.app.jobs.queue import QueueState
from api.app.worker import create_job_app
from api.kernel.deferred import Email, defer_emails
from api.kernel.http.metrics import HttpMetrics, HttpMetricsMiddleware
from devstack.replicas import Replica, replica_environment
from devstack.services import ROOT, connect, free_port
from devstack.stack import Stack
from tests.api.conftest import MakeUser
from tests.api.kernel.test_jobs import start_worker, worker_environment


def samples(exposition: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a Prometheus text exposition by (name, labels)."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
    }


def value(
    found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def _batch() -> dict[str, Any]:
    record = {
        "idempotencyKey": str(uuid.uuid4()),
        "platform": "api",
        "runs": 1,
        "credits": 1,
        "time": datetime.now(UTC).isoformat(),
    }
    return {"records": [record]}


class TestApiMetrics:
    async def test_served_on_their_own_port_by_route_template_in_flight_and_pool(
        self, stack: Stack, make_user: MakeUser, tmp_path: Path
    ) -> None:
        owner = await make_user()
        replica = Replica(
            "metrics",
            replica_environment(stack, "http://127.0.0.1"),
            tmp_path,
            metrics_port=free_port(),
        )
        replica.start()
        metrics_url = f"http://127.0.0.1:{replica.metrics_port}/metrics"
        try:
            await asyncio.to_thread(replica.wait_ready)
            async with httpx.AsyncClient(base_url=replica.url, timeout=30) as client:
                assert (await client.get("/web/session", headers=owner.headers)).status_code == 200
                missing = f"/web/users/{uuid.uuid4()}"
                assert (await client.put(missing, headers=owner.headers, json={})).status_code in (
                    404,
                    422,
                )
                # Not on the public port: the proxy routes only that one.
                assert (await client.get("/metrics")).status_code == 404

                headers = {"X-API-Key": owner.api_key}
                first = await client.post("/metering/usage", json=_batch(), headers=headers)
                assert first.status_code == 200  # makes the rollup row the lock holds next
                # Hold the account's usage rollup: a metering batch waits on it, in flight.
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
                during = samples((await client.get(metrics_url)).text)
                await lock.commit()
                await blocker.close()
                assert (await in_flight).status_code == 200
                after = samples((await client.get(metrics_url)).text)
        finally:
            replica.stop()
        session = {"method": "GET", "route": "/web/session"}
        assert value(after, "console_http_requests_total", **session, status="200") == 1
        assert value(after, "console_http_request_duration_seconds_count", **session) == 1
        assert (
            value(after, "console_http_request_duration_seconds_bucket", **session, le="+Inf") == 1
        )
        # The template, never the raw path (bounded labels).
        assert any(
            name == "console_http_requests_total"
            and dict(labels)["route"] == "/web/users/{user_id}"
            for name, labels in after
        )
        assert not any(missing in dict(labels).get("route", "") for _, labels in after)
        assert value(during, "console_http_requests_in_flight") == 1
        assert value(after, "console_http_requests_in_flight") == 0
        assert value(during, "console_db_pool_connections", pool="main", state="in_use") >= 1
        size = value(after, "console_db_pool_connections", pool="main", state="size")
        assert size == stack.settings.db_pool_size

    async def test_an_exception_counts_as_the_500_it_becomes(self) -> None:
        metrics = HttpMetrics(CollectorRegistry())
        seen_in_flight: list[float] = []

        async def broken(scope: Scope, receive: Receive, send: Send) -> None:
            seen_in_flight.append(
                metrics.registry.get_sample_value("console_http_requests_in_flight") or 0
            )
            raise RuntimeError("boom")

        middleware = HttpMetricsMiddleware(broken, metrics)
        scope = {"type": "http", "method": "POST", "path": "/web/x", "headers": []}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b""}

        async def send(message: dict[str, Any]) -> None:
            pass

        with pytest.raises(RuntimeError):
            await middleware(scope, receive, send)
        assert seen_in_flight == [1]
        labels = {"method": "POST", "route": "unmatched", "status": "500"}
        assert metrics.registry.get_sample_value("console_http_requests_total", labels) == 1
        assert metrics.registry.get_sample_value("console_http_requests_in_flight") == 0

    async def test_head_is_counted_under_the_get_route(
        self, app: FastAPI, client: httpx.AsyncClient
    ) -> None:
        labels = {"method": "HEAD", "route": "/healthz", "status": "200"}
        registry = app.state.metrics.registry
        before = registry.get_sample_value("console_http_requests_total", labels) or 0
        assert (await client.head("/healthz")).status_code == 200
        assert registry.get_sample_value("console_http_requests_total", labels) == before + 1


class TestWorkerMetrics:
    async def test_jobs_by_queue_and_status_and_the_oldest_waiting(
        self, app: FastAPI, stack: Stack
    ) -> None:
        queue = f"test-{secrets.token_hex(6)}"  # no worker takes it
        async with app.state.resources.sessionmaker() as db, db.begin():
            [waiting, later] = await defer_emails(
                db,
                [Email(f"q-{n}@example-corp.com", "s", "t", f"k.{n}") for n in range(2)],
                queue=queue,
            )
            # The first has waited since a minute ago; the second is due only tomorrow.
            await db.execute(
                text(
                    "UPDATE procrastinate_events SET at = now() - interval '60 seconds' "
                    "WHERE job_id = :id AND type = 'deferred'"
                ),
                {"id": waiting},
            )
            await db.execute(
                text(
                    "UPDATE procrastinate_jobs SET scheduled_at = now() + interval '1 day' "
                    "WHERE id = :id"
                ),
                {"id": later},
            )
        metrics = WorkerMetrics(CollectorRegistry())
        assert not metrics.ready()  # nothing read yet
        jobs = create_job_app(stack.settings)
        async with jobs.open_async():
            await metrics.refresh(jobs)
        registry = metrics.registry
        assert registry.get_sample_value("console_jobs", {"queue": queue, "status": "todo"}) == 2
        waited = registry.get_sample_value(
            "console_job_queue_oldest_waiting_seconds", {"queue": queue}
        )
        assert waited is not None and 59 <= waited < 120
        assert metrics.ready()
        metrics.stopping = True
        assert not metrics.ready()
        async with app.state.resources.sessionmaker() as db, db.begin():  # tidy up
            await db.execute(
                text("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE queue_name = :q"),
                {"q": queue},
            )

    def test_the_worker_serves_its_metrics_and_readiness(
        self, stack: Stack, tmp_path: Path
    ) -> None:
        port = free_port()
        worker = start_worker(
            tmp_path / "worker.log",
            worker_environment(stack),
            "--metrics-port",
            str(port),
            "--metrics-host",
            "127.0.0.1",
            "--shutdown-grace-s",
            "5",
        )
        try:
            deadline = time.monotonic() + 15  # ready once registered with the engine
            while httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code != 200:
                assert time.monotonic() < deadline, "the worker never became ready"
                time.sleep(0.1)
            found = samples(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text)
            assert any(name == "console_jobs" for name, _ in found)
            assert httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 404
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(15) == 0
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()


class TestQueueCommand:
    def test_prints_jobs_per_queue_and_status_and_the_oldest_waiting(self) -> None:
        state = QueueState(
            jobs={
                "emails": {
                    "todo": 2,
                    "doing": 1,
                    "succeeded": 348,
                    "failed": 0,
                    "cancelled": 0,
                    "aborted": 0,
                },
                "maintenance": {
                    "todo": 0,
                    "doing": 0,
                    "succeeded": 61,
                    "failed": 1,
                    "cancelled": 0,
                    "aborted": 0,
                },
            },
            oldest_waiting_s={"emails": 4.21},
        )
        lines = render(state)
        assert len({len(line) for line in lines}) == 1  # aligned columns
        assert [line.split() for line in lines] == [
            [
                "queue",
                "todo",
                "doing",
                "succeeded",
                "failed",
                "cancelled",
                "aborted",
                "oldest",
                "waiting",
            ],
            ["emails", "2", "1", "348", "0", "0", "0", "4.2", "s"],
            ["maintenance", "0", "0", "61", "1", "0", "0", "-"],
            ["all", "2", "1", "409", "1", "0", "0", "4.2", "s"],
        ]

    def test_runs_against_the_database(self, stack: Stack, app: FastAPI) -> None:
        env = {**os.environ, "DATABASE_URL": stack.settings.database_url}
        done = subprocess.run(
            [sys.executable, "-m", "api.app.commands.queue"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].split()[:3] == ["queue", "todo", "doing"]
        assert lines[-1].startswith("all ")
        unreachable = subprocess.run(
            [sys.executable, "-m", "api.app.commands.queue"],
            capture_output=True,
            text=True,
            env={**env, "DATABASE_URL": "postgresql+asyncpg://nobody@127.0.0.1:1/none"},
            cwd=ROOT,
            timeout=60,
            check=False,
        )
        assert unreachable.returncode == 1
        assert unreachable.stderr == "the database cannot be reached\n"
