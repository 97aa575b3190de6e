"""The console's periodic work, run by the job worker (README "Background work").

The features declare their periodic work (api/feature.py ``PeriodicTask``; the list:
api/app/features.py): each runs on a schedule of the settings (cron, UTC; empty: never).
procrastinate defers one job per tick whatever the number of workers
(``procrastinate_periodic_defers`` is unique per task and tick), and each task carries a
``lock`` and a ``queueing_lock`` of its own name, so one run at a time across the workers (a
tick that comes while a run is going waits for it) and at most one waiting behind it (a further
tick is skipped). A run that raises is a failed job (the worker logs why; the job failure
metrics count it); the next tick tries again.

- ``recheck_domains`` (``DOMAIN_RECHECK_CRON``): verified domains due a re-check
  (api/identity/sso/recheck.py);
- ``audit_retention`` (``AUDIT_RETENTION_CRON``): the audit log's month partitions
  (api/audit/retention.py);
- ``reconcile_billing`` (``BILLING_RECONCILE_CRON``): every account against Stripe
  (api/billing/reconcile.py), repairing only with ``BILLING_RECONCILE_FIX``; differences left
  fail the job, each one in the log;
- ``delete_orphan_users`` (``ORPHAN_USER_CLEANUP_CRON``): pool users a crash left without a
  console row (api/identity/membership/pool_users.py);
- ``saml_upkeep`` (``SAML_UPKEEP_CRON``): SAML connections' metadata fetched again daily and
  their expiring certificates announced (api/identity/sso/saml_refresh.py);
- ``prune_jobs`` (daily, the worker's own): finished jobs older than ``JOB_RETENTION_DAYS``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence

import procrastinate

from api.app.jobs.stalled import MAINTENANCE_QUEUE
from api.feature import PeriodicTask
from api.kernel.config import Settings
from api.principal.resources import JobResources

PERIODIC_QUEUE = "periodic"
"""The queue of the console's periodic tasks."""

PRUNE_JOBS_CRON = "50 4 * * *"


def register(
    app: procrastinate.App,
    settings: Settings,
    resources: JobResources,
    tasks: Sequence[PeriodicTask],
) -> None:
    """Add each of ``tasks`` whose schedule is set in ``settings``, and the daily pruning of
    old jobs, to ``app``; the tasks work with ``resources``."""
    for task in tasks:
        cron = task.cron(settings)
        if cron:
            _schedule(app, task.name, cron, PERIODIC_QUEUE, functools.partial(task.run, resources))
    retention_hours = settings.job_retention_days * 24

    async def prune() -> None:
        await app.job_manager.delete_old_jobs(
            nb_hours=retention_hours,
            include_failed=True,
            include_cancelled=True,
            include_aborted=True,
        )

    _schedule(app, "prune_jobs", PRUNE_JOBS_CRON, MAINTENANCE_QUEUE, prune)


def _schedule(
    app: procrastinate.App,
    name: str,
    cron: str,
    queue: str,
    work: Callable[[], Awaitable[None]],
) -> None:
    """Register ``work`` as the task ``name`` on ``queue``, deferred at every tick of ``cron``
    once across the workers, one run at a time (see the module docstring)."""

    async def run(timestamp: int) -> None:
        await work()

    run.__name__ = name
    task = app.task(name=name, queue=queue, lock=name, queueing_lock=name)(run)
    app.periodic(cron=cron, periodic_id=name)(task)
