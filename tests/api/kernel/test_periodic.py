"""The periodic work on the job worker (api/app/jobs/periodic.py, README "Background work"): one
deferral per tick whatever the number of workers, one run at a time, each task doing its work;
and the API processes run no background loop any more."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import procrastinate
import pytest
from fastapi import FastAPI
from procrastinate.periodic import PeriodicDeferrer
from pydantic import ValidationError
from sqlalchemy import text
from structlog.testing import capture_logs

from api.app.features import periodic_tasks
from api.app.jobs.periodic import PERIODIC_QUEUE
from api.app.web import create_app
from api.app.worker import create_job_app
from api.billing.feature import BillingOutOfStep, reconcile_billing
from api.kernel.config import Settings
from api.principal.resources import JobResources
from devstack.stack import Stack
from tests.api.billing.test_billing import add_card
from tests.api.conftest import MakeUser

TASK = "recheck_domains"


def _scheduled(stack: Stack, **changes: object) -> Settings:
    """The stack's settings with every periodic task scheduled (the tests' stack has none)."""
    crons = {task.schedule.lower(): "*/10 * * * *" for task in periodic_tasks()}
    return stack.with_settings(**{**crons, **changes})


async def _jobs(app: FastAPI, task: str) -> list[Any]:
    async with app.state.resources.sessionmaker() as db:
        rows = await db.execute(
            text(
                "SELECT id, status, lock, queueing_lock, args FROM procrastinate_jobs "
                "WHERE task_name = :task AND status IN ('todo', 'doing') ORDER BY id"
            ),
            {"task": task},
        )
        return list(rows)


async def _cancel(app: FastAPI, task: str) -> None:
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            text(
                "UPDATE procrastinate_jobs SET status = 'cancelled' "
                "WHERE task_name = :task AND status IN ('todo', 'doing')"
            ),
            {"task": task},
        )


@pytest.fixture
async def workers(app: FastAPI, stack: Stack) -> AsyncIterator[list[procrastinate.App]]:
    """Two workers' apps (as two processes would build them), with every task scheduled; no
    job of :data:`TASK` waiting before or after."""
    await _cancel(app, TASK)
    apps = [create_job_app(_scheduled(stack)) for _ in range(2)]
    async with apps[0].open_async(), apps[1].open_async():
        yield apps
    await _cancel(app, TASK)


def _at(app: procrastinate.App, tick: int) -> list[tuple[Any, int]]:
    """What a worker's periodic deferrer defers for :data:`TASK` at ``tick``."""
    return [(p, tick) for p in app.periodic_registry.periodic_tasks.values() if p.task.name == TASK]


class TestOneOwnerAtATime:
    async def test_every_task_is_scheduled_from_its_setting(
        self, stack: Stack, workers: list[procrastinate.App]
    ) -> None:
        scheduled = {p.task.name: p for p in workers[0].periodic_registry.periodic_tasks.values()}
        for name in (task.name for task in periodic_tasks()):
            task = scheduled[name].task
            assert (scheduled[name].cron, task.queue) == ("*/10 * * * *", PERIODIC_QUEUE)
            assert task.lock == task.queueing_lock == name
        # An empty schedule: never.
        idle = create_job_app(stack.settings)
        assert {p.task.name for p in idle.periodic_registry.periodic_tasks.values()} == {
            "retry_stalled_jobs",
            "prune_jobs",
        }

    async def test_a_tick_is_deferred_once_whatever_the_number_of_workers(
        self, app: FastAPI, workers: list[procrastinate.App]
    ) -> None:
        tick = 1_700_000_000 + secrets.randbelow(10**8) * 600
        deferrers = [PeriodicDeferrer(registry=w.periodic_registry) for w in workers]
        pairs = zip(deferrers, workers, strict=True)
        await asyncio.gather(*(d.defer_jobs(_at(w, tick)) for d, w in pairs))
        [job] = await _jobs(app, TASK)
        assert job.args == {"timestamp": tick}
        # The next tick while it still waits: skipped (its queueing lock), not piled up.
        await deferrers[1].defer_jobs(_at(workers[1], tick + 600))
        assert [j.id for j in await _jobs(app, TASK)] == [job.id]

    async def test_a_tick_that_comes_while_a_run_goes_waits_for_it(
        self, app: FastAPI, workers: list[procrastinate.App]
    ) -> None:
        tick = 1_700_000_000 + secrets.randbelow(10**8) * 600
        first, second = workers
        await PeriodicDeferrer(registry=first.periodic_registry).defer_jobs(_at(first, tick))
        worker_id = await first.job_manager.register_worker()
        running = await first.job_manager.fetch_job(queues=[PERIODIC_QUEUE], worker_id=worker_id)
        assert running is not None and running.task_name == TASK
        # The next tick is deferred (nothing of it waits), but no worker takes it while the
        # first run goes on.
        await PeriodicDeferrer(registry=second.periodic_registry).defer_jobs(
            _at(second, tick + 600)
        )
        assert [j.status for j in await _jobs(app, TASK)] == ["doing", "todo"]
        other = await second.job_manager.register_worker()
        assert await second.job_manager.fetch_job(queues=[PERIODIC_QUEUE], worker_id=other) is None
        await first.job_manager.finish_job(
            running, status=procrastinate.jobs.Status.SUCCEEDED, delete_job=False
        )
        after = await second.job_manager.fetch_job(queues=[PERIODIC_QUEUE], worker_id=other)
        assert after is not None and after.task_kwargs == {"timestamp": tick + 600}
        for worker in (worker_id, other):
            await first.job_manager.unregister_worker(worker)


class TestTasks:
    async def test_a_scheduled_task_runs_on_a_worker(
        self, app: FastAPI, stack: Stack, workers: list[procrastinate.App]
    ) -> None:
        """The audit log's retention, as a worker runs it: the job succeeds."""
        await _cancel(app, "audit_retention")
        resources = JobResources(stack.settings)
        jobs = create_job_app(_scheduled(stack), resources=resources)
        try:
            async with jobs.open_async():
                [periodic] = [
                    p
                    for p in jobs.periodic_registry.periodic_tasks.values()
                    if p.task.name == "audit_retention"
                ]
                tick = 1_700_000_000 + secrets.randbelow(10**8) * 600
                await PeriodicDeferrer(registry=jobs.periodic_registry).defer_jobs(
                    [(periodic, tick)]
                )
                await jobs.run_worker_async(
                    queues=[PERIODIC_QUEUE], wait=False, install_signal_handlers=False
                )
        finally:
            await resources.aclose()
        async with app.state.resources.sessionmaker() as db:
            status = await db.scalar(
                text(
                    "SELECT status FROM procrastinate_jobs WHERE task_name = 'audit_retention' "
                    "AND args->>'timestamp' = :tick"
                ),
                {"tick": str(tick)},
            )
        assert status == "succeeded"

    async def test_reconciliation_reports_and_fails_on_a_difference_unless_told_to_fix(
        self, app: FastAPI, stack: Stack, make_user: MakeUser, client: httpx.AsyncClient
    ) -> None:
        owner = await make_user()
        assert (await add_card(client, stack, owner)).status_code == 200
        # Our row says a card the customer does not have at Stripe any more.
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                text("UPDATE account SET card_last4 = '0000' WHERE id = :id"),
                {"id": owner.account.id},
            )
        report_only = JobResources(stack.settings)
        try:
            with capture_logs() as logs, pytest.raises(BillingOutOfStep, match="difference"):
                await reconcile_billing(report_only)
        finally:
            await report_only.aclose()
        mine = [
            log["difference"]
            for log in logs
            if log["event"] == "billing_difference"
            and log["difference"].startswith(str(owner.account.id))
        ]
        theirs = "card: ours Visa 0000 08/2031, Stripe Visa 4242 08/2031"
        assert mine == [f"{owner.account.id} {theirs}"]
        # With BILLING_RECONCILE_FIX the difference is repaired; the job fails only if some
        # difference (of any account of the test database) is left unfixed.
        fixing = JobResources(stack.with_settings(billing_reconcile_fix=True))
        try:
            with capture_logs() as logs:
                try:
                    await reconcile_billing(fixing)
                    failed = False
                except BillingOutOfStep:
                    failed = True
        finally:
            await fixing.aclose()
        found = [log["difference"] for log in logs if log["event"] == "billing_difference"]
        assert failed == any("; fixed: " not in difference for difference in found)
        mine = [d for d in found if d.startswith(str(owner.account.id))]
        assert mine == [f"{owner.account.id} {theirs}; fixed: set to Stripe's"]
        async with app.state.resources.sessionmaker() as db:
            last4 = await db.scalar(
                text("SELECT card_last4 FROM account WHERE id = :id"), {"id": owner.account.id}
            )
        assert last4 == "4242"


def test_the_api_runs_no_background_loop(stack: Stack) -> None:
    """Every loop moved to the worker: the app's lifespan starts no task of its own (on a loop
    of its own, where nothing else runs)."""

    async def started_by_the_lifespan() -> set[asyncio.Task[Any]]:
        api = create_app(_scheduled(stack))
        async with api.router.lifespan_context(api):
            await asyncio.sleep(0.2)
            return asyncio.all_tasks() - {asyncio.current_task()}

    assert asyncio.run(started_by_the_lifespan()) == set()


def test_a_schedule_that_is_not_cron_is_refused_naming_the_setting() -> None:
    with pytest.raises(ValidationError, match="DOMAIN_RECHECK_CRON: 'every day' is not a cron"):
        Settings(domain_recheck_cron="every day")
    assert Settings(domain_recheck_cron="").sso.domain_recheck_cron == ""  # never
