"""Durable background work (README "Background work"): jobs are deferred in the transaction of
the change that causes them, so a rolled-back change runs nothing and a committed one always
runs; the email job retries a failed send with a backoff, under one stable ``Message-ID``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import procrastinate
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from api.adapters.mail import Mailer, MailUnavailable
from api.app.jobs.emails import EMAIL_RETRY, retry_schedule_s
from api.app.jobs.stalled import retry_stalled
from api.app.worker import create_job_app, psycopg_conninfo
from api.kernel.deferred import Email, defer_emails
from api.usage.alerts import message_key
from devstack.replicas import replica_environment
from devstack.services import ROOT
from devstack.stack import PERIODIC_SCHEDULES, Stack
from tests.api.conftest import MakeUser, mails_to, unique_email
from tests.api.usage.test_alerts import meter


async def _jobs_of(app: FastAPI, to: str) -> list[Any]:
    """The rows of the jobs sending to ``to``."""
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            text(
                "SELECT id, status, attempts, args FROM procrastinate_jobs "
                "WHERE args->>'to' = :to ORDER BY id"
            ),
            {"to": to},
        )
        return list(rows)


async def _finished_jobs_of(app: FastAPI, to: str, wait_s: float = 5.0) -> list[Any]:
    """The rows of the jobs sending to ``to`` once none is waiting or running."""
    deadline = time.monotonic() + wait_s
    while True:
        rows = await _jobs_of(app, to)
        if all(r.status not in ("todo", "doing") for r in rows) or time.monotonic() > deadline:
            return rows
        await asyncio.sleep(0.05)


async def _left_running_by_a_dead_worker(app: FastAPI, job_id: int) -> None:
    """A worker took job ``job_id``, then died (SIGKILL: no more heartbeats, no goodbye)."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        dead = await db.scalar(
            text(
                "INSERT INTO procrastinate_workers (last_heartbeat) "
                "VALUES (now() - interval '10 minutes') RETURNING id"
            )
        )
        await db.execute(
            text("UPDATE procrastinate_jobs SET status = 'doing', worker_id = :w WHERE id = :j"),
            {"w": dead, "j": job_id},
        )


def _email(to: str, key: str | None = None) -> Email:
    return Email(
        to=to,
        subject="A test message",
        text="Hello.\n",
        message_key=key or f"test.{secrets.token_hex(8)}",
    )


class TestDeferredInTheTransaction:
    async def test_a_rolled_back_change_sends_nothing_a_committed_one_sends(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, queue: str
    ) -> None:
        # What the transaction promises: a job exists exactly when the change committed, and
        # a worker sends it. On a queue of its own, worked off here, the test does not wait
        # on the shared worker beside the app, which other tests may leave busy (its promise
        # is only to take jobs in turn, four at a time).
        dropped, kept = unique_email("dropped"), unique_email("kept")
        async with app.state.resources.sessionmaker() as db:
            [job_id] = await defer_emails(db, [_email(dropped)], queue=queue)
            assert job_id > 0
            await db.rollback()
        async with app.state.resources.sessionmaker() as db, db.begin():
            await defer_emails(db, [_email(kept)], queue=queue)
        assert await _jobs_of(app, dropped) == []
        [job] = await _jobs_of(app, kept)
        assert job.status == "todo"

        jobs = create_job_app(stack.settings)
        async with jobs.open_async():
            await _work_off(jobs, queue)
        [job] = await _jobs_of(app, kept)
        assert (job.status, job.attempts) == ("succeeded", 1)
        # Sent through the SMTP sink before the job succeeded: in the mailbox now.
        [mail] = await mails_to(client, kept, wait_s=0)
        assert mail["subject"] == "A test message"
        assert await _jobs_of(app, dropped) == []
        assert await mails_to(client, dropped, wait_s=0) == []

    async def test_a_committed_crossing_emails_each_recipient_once_with_a_stable_id(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        colleague = await make_user(account=me.account)
        await meter(client, me, 50)  # 50 of the free plan's 100
        mailer = Mailer.from_settings(app.state.settings)
        for user in (me, colleague):
            # The shared worker takes jobs in turn, four at a time, and other tests may have
            # left it a backlog: wait for this job to be done (as long as a loaded machine
            # needs), then the message is in the mailbox, sent before the job succeeded.
            [job] = await _finished_jobs_of(app, user.user.email, wait_s=60)
            assert (job.status, job.attempts) == ("succeeded", 1)
            [mail] = await mails_to(client, user.user.email, wait_s=0)
            assert mail["subject"] == f"{me.account.name} has used 50% of its plan allowance"
            key = job.args["message_key"]
            assert key.startswith(f"usage-alert.{me.account.id}.")
            assert key.split(".")[-2] == "50"
            assert mail["messageId"] == mailer.message_id(key)
        # One message per recipient, each with its own id.
        keys = {(await _jobs_of(app, u.user.email))[0].args["message_key"] for u in (me, colleague)}
        assert len(keys) == 2
        for user in (me, colleague):
            assert len(await mails_to(client, user.user.email, expected=2, wait_s=0.5)) == 1


class FlakyMailer(Mailer):
    """Fails the first ``failures`` sends as an unreachable relay does; records every attempt's
    recipient and Message-ID."""

    def __init__(self, failures: int) -> None:
        super().__init__(host="127.0.0.1", port=1, sender="Console <no-reply@console.test>")
        self.failures = failures
        self.attempts: list[tuple[str, str]] = []

    async def send(self, to: str, subject: str, text: str, *, message_id: str = "") -> None:
        self.attempts.append((to, message_id))
        if len(self.attempts) <= self.failures:
            raise MailUnavailable("SMTP: timed out")


@pytest.fixture
async def queue() -> AsyncIterator[str]:
    """A queue of this test alone: the app's own worker does not take its jobs."""
    yield f"test-{uuid.uuid4().hex[:12]}"


async def _defer_one(app: FastAPI, email: Email, queue: str) -> int:
    """Defer ``email`` on ``queue`` in a committed transaction; returns the job id."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        [job_id] = await defer_emails(db, [email], queue=queue)
    return job_id


async def _work_off(jobs: procrastinate.App, queue: str) -> None:
    """Run a worker on ``queue`` until nothing there is due (wait=False)."""
    await jobs.run_worker_async(queues=[queue], wait=False, install_signal_handlers=False)


class TestRetries:
    async def test_a_failed_send_is_retried_later_under_the_same_message_id(
        self, app: FastAPI, stack: Stack, queue: str
    ) -> None:
        to = unique_email("retried")
        job_id = await _defer_one(app, _email(to, "usage-alert.a.1.50.t"), queue)
        mailer = FlakyMailer(failures=1)
        jobs = create_job_app(stack.settings, mailer=mailer)
        async with jobs.open_async():
            await _work_off(jobs, queue)
            [job] = await _jobs_of(app, to)
            # Not dropped: back in the queue for later (2 s after the first attempt).
            assert (job.status, job.attempts) == ("todo", 1)
            async with app.state.resources.sessionmaker() as db, db.begin():
                due = await db.scalar(
                    text("SELECT scheduled_at > now() FROM procrastinate_jobs WHERE id = :id"),
                    {"id": job_id},
                )
                assert due is True
                # As if the backoff had passed.
                await db.execute(
                    text("UPDATE procrastinate_jobs SET scheduled_at = now() WHERE id = :id"),
                    {"id": job_id},
                )
            await _work_off(jobs, queue)
        [job] = await _jobs_of(app, to)
        assert (job.status, job.attempts) == ("succeeded", 2)
        assert mailer.attempts == [(to, "<usage-alert.a.1.50.t@console.test>")] * 2

    async def test_a_job_a_dead_worker_left_running_is_sent_again_under_the_same_id(
        self, app: FastAPI, stack: Stack, queue: str
    ) -> None:
        to = unique_email("orphaned")
        async with app.state.resources.sessionmaker() as db, db.begin():
            [job_id] = await defer_emails(db, [_email(to, "domain-lost.d.1.t")], queue=queue)
            # A worker took it, then died (SIGKILL: no more heartbeats, no goodbye).
            dead = await db.scalar(
                text(
                    "INSERT INTO procrastinate_workers (last_heartbeat) "
                    "VALUES (now() - interval '10 minutes') RETURNING id"
                )
            )
            await db.execute(
                text(
                    "UPDATE procrastinate_jobs SET status = 'doing', worker_id = :w WHERE id = :j"
                ),
                {"w": dead, "j": job_id},
            )
        mailer = FlakyMailer(failures=0)
        jobs = create_job_app(stack.settings, mailer=mailer)
        async with jobs.open_async():
            await retry_stalled(jobs)
            [job] = await _jobs_of(app, to)
            assert job.status == "todo"
            await _work_off(jobs, queue)
        [job] = await _jobs_of(app, to)
        assert job.status == "succeeded"
        assert mailer.attempts == [(to, "<domain-lost.d.1.t@console.test>")]

    async def test_a_live_workers_job_is_left_alone(
        self, app: FastAPI, stack: Stack, queue: str
    ) -> None:
        to = unique_email("running")
        async with app.state.resources.sessionmaker() as db, db.begin():
            [job_id] = await defer_emails(db, [_email(to)], queue=queue)
            alive = await db.scalar(
                text("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
            )
            await db.execute(
                text(
                    "UPDATE procrastinate_jobs SET status = 'doing', worker_id = :w WHERE id = :j"
                ),
                {"w": alive, "j": job_id},
            )
        jobs = create_job_app(stack.settings)
        async with jobs.open_async():
            await retry_stalled(jobs)
        [job] = await _jobs_of(app, to)
        assert job.status == "doing"
        async with app.state.resources.sessionmaker() as db, db.begin():  # tidy up
            await db.execute(
                text("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE id = :j"),
                {"j": job_id},
            )

    async def test_a_job_that_stalls_again_and_again_ends_failed(
        self, app: FastAPI, stack: Stack, queue: str
    ) -> None:
        # Each stall is an attempt: the email task's retries (EMAIL_RETRY) are used up by
        # stalls as by failed sends, then the job fails instead of going back for ever.
        to = unique_email("stalls")
        job_id = await _defer_one(app, _email(to), queue)
        retries = EMAIL_RETRY.max_attempts
        assert retries
        jobs = create_job_app(stack.settings)
        async with jobs.open_async():
            # (The app's own worker may find the stalled job first: the state is what counts.)
            for attempt in range(1, retries + 1):
                await _left_running_by_a_dead_worker(app, job_id)
                await retry_stalled(jobs, queue=queue)
                [job] = await _jobs_of(app, to)
                assert (job.status, job.attempts) == ("todo", attempt)
            await _left_running_by_a_dead_worker(app, job_id)
            assert await retry_stalled(jobs, queue=queue) == 0
        [job] = await _jobs_of(app, to)
        assert (job.status, job.attempts) == ("failed", retries + 1)

    async def test_a_stalled_job_of_a_task_without_retries_ends_failed(
        self, app: FastAPI, stack: Stack, queue: str
    ) -> None:
        # A periodic task is not retried (its next tick is): its stalled job fails at once,
        # which also frees the task's lock for that tick.
        jobs = create_job_app(stack.settings)
        async with jobs.open_async():
            deferrer = jobs.tasks["retry_stalled_jobs"].configure(
                queue=queue, queueing_lock=f"stalled-{queue}"
            )
            job_id = await deferrer.defer_async(timestamp=0)
            await _left_running_by_a_dead_worker(app, job_id)
            assert await retry_stalled(jobs, queue=queue) == 0
        async with app.state.resources.sessionmaker() as db:
            row = (
                await db.execute(
                    text("SELECT status, attempts FROM procrastinate_jobs WHERE id = :id"),
                    {"id": job_id},
                )
            ).one()
        assert (row.status, row.attempts) == ("failed", 1)

    def test_the_backoff_keeps_trying_for_more_than_an_hour(self) -> None:
        waits = retry_schedule_s()
        assert waits == sorted(waits) and waits[0] <= 5
        assert sum(waits) >= 3600


def worker_environment(stack: Stack) -> dict[str, str]:
    """A worker's environment against ``stack`` (its stand-ins), the periodic tasks off."""
    env = {**os.environ, **replica_environment(stack, "http://127.0.0.1"), "LOG_LEVEL": "INFO"}
    return {**env, **dict.fromkeys(PERIODIC_SCHEDULES, "")}


def start_worker(log: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """``python -m api.app.commands.worker *args``, its output in ``log`` (a file: a pipe nobody
    reads
    would fill up and block it), once it says it runs."""
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "api.app.commands.worker", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
    deadline = time.monotonic() + 30
    while b"worker_started" not in log.read_bytes():
        assert worker.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    return worker


class TestWorkerCommand:
    def test_sigterm_stops_the_worker_gracefully(self, stack: Stack, tmp_path: Path) -> None:
        log = tmp_path / "worker.log"
        worker = start_worker(log, worker_environment(stack), "--shutdown-grace-s", "5")
        try:
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(15) == 0, log.read_text()[-3000:]
            assert "worker_stopped" in log.read_text()
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()


class TestMessageIds:
    def test_derived_from_what_is_announced(self) -> None:
        account = uuid.UUID(int=1)
        cycle = datetime(2026, 11, 1, tzinfo=UTC)
        key = message_key(account, cycle, 80, "Ada@Example.com")
        assert key == message_key(account, cycle, 80, "ada@example.com")
        assert key.startswith(f"usage-alert.{account}.{int(cycle.timestamp())}.80.")
        assert key != message_key(account, cycle, 100, "ada@example.com")
        assert key != message_key(account, cycle, 80, "grace@example.com")
        mailer = Mailer(host="h", port=25, sender="Console <no-reply@console.example>")
        assert mailer.message_id(key) == f"<{key}@console.example>"

    def test_the_worker_connects_with_the_apis_database_url(self) -> None:
        conninfo = psycopg_conninfo(
            "postgresql+asyncpg://app:s3cret@db.internal:5433/console?ssl=require"
        )
        assert set(conninfo.split()) == {
            "user=app",
            "password=s3cret",
            "host=db.internal",
            "port=5433",
            "dbname=console",
            "sslmode=require",
        }
        socket = psycopg_conninfo("postgresql+asyncpg://postgres@/console?host=/tmp/pg")
        assert set(socket.split()) == {"user=postgres", "host=/tmp/pg", "dbname=console"}


@contextlib.contextmanager
def smtp_paused(stack: Stack) -> Iterator[None]:
    """The SMTP sink process stopped (SIGSTOP): it accepts no connection's data and answers
    nothing, as a relay that hangs; resumed (SIGCONT) on leaving."""
    os.kill(stack.smtp.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(stack.smtp.process.pid, signal.SIGCONT)


class TestProof:
    """README "Background work": what the console promises to send arrives, whatever the relay
    or a worker does in between."""

    async def test_an_alert_crossed_while_the_relay_hangs_arrives_once_it_is_back(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, make_user: MakeUser
    ) -> None:
        me = await make_user()
        timeout_s = stack.settings.mail.smtp_timeout_s
        with smtp_paused(stack):
            await meter(client, me, 50)  # 50 % of the free plan: the alert is deferred
            # Longer than the SMTP timeout: the first attempt times out and is retried.
            await asyncio.sleep(timeout_s + 2)
            [job] = await _jobs_of(app, me.user.email)
            assert job.attempts >= 1 and job.status in ("todo", "doing")
            assert await mails_to(client, me.user.email, wait_s=0) == []
        [mail] = await mails_to(client, me.user.email, wait_s=30)
        assert mail["subject"] == f"{me.account.name} has used 50% of its plan allowance"
        [job] = await _finished_jobs_of(app, me.user.email, wait_s=10)
        assert job.status == "succeeded" and job.attempts >= 2
        # Exactly once, under its stable Message-ID.
        assert len(await mails_to(client, me.user.email, expected=2, wait_s=3)) == 1
        assert mail["messageId"] == Mailer.from_settings(stack.settings).message_id(
            job.args["message_key"]
        )

    async def test_a_job_of_a_killed_worker_is_finished_by_another(
        self, app: FastAPI, client: httpx.AsyncClient, stack: Stack, queue: str, tmp_path: Path
    ) -> None:
        to = unique_email("killed")
        env = worker_environment(stack)
        first = await asyncio.to_thread(
            start_worker, tmp_path / "first.log", env, "--queues", queue
        )
        second = None
        try:
            with smtp_paused(stack):
                job_id = await _defer_one(app, _email(to, "usage-alert.k.1.50.t"), queue)
                deadline = time.monotonic() + 10
                while (await _jobs_of(app, to))[0].status != "doing":  # sending, hung
                    assert time.monotonic() < deadline, "the first worker never took the job"
                    await asyncio.sleep(0.05)
                first.kill()  # SIGKILL mid-job: no goodbye, the job stays doing
                assert first.wait(10) == -signal.SIGKILL
            second = await asyncio.to_thread(
                start_worker, tmp_path / "second.log", env, "--queues", queue
            )
            [job] = await _jobs_of(app, to)
            assert (job.id, job.status) == (job_id, "doing")
            # What the minutely periodic task of any worker does once the dead one's heartbeat
            # is a minute old, here after a few seconds (its heartbeat came at start).
            jobs = create_job_app(stack.settings)
            async with jobs.open_async():
                deadline = time.monotonic() + 30
                while not await retry_stalled(jobs, stalled_after_s=2, queue=queue):
                    assert time.monotonic() < deadline, "the job was never found stalled"
                    await asyncio.sleep(0.5)
            [mail] = await mails_to(client, to, wait_s=20)
            [job] = await _finished_jobs_of(app, to, wait_s=10)
            assert job.status == "succeeded"
            assert mail["messageId"].startswith("<usage-alert.k.1.50.t@")  # the same on every try
            assert len(await mails_to(client, to, expected=2, wait_s=2)) == 1
        finally:
            for worker in (first, second):
                if worker is not None and worker.poll() is None:
                    worker.terminate()
                    worker.wait(30)
