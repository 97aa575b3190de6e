"""The console's periodic work, run by the job worker (README "Background work").

Each task runs on a schedule of the settings (cron, UTC; empty: never): procrastinate defers
one job per tick whatever the number of workers (``procrastinate_periodic_defers`` is unique
per task and tick), and each task carries a ``lock`` and a ``queueing_lock`` of its own name,
so one run at a time across the workers (a tick that comes while a run is going waits for it)
and at most one waiting behind it (a further tick is skipped). A run that raises is a failed
job (the worker logs why; the job failure metrics count it); the next tick tries again.

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
- ``prune_jobs`` (daily): finished jobs older than ``JOB_RETENTION_DAYS``.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from datetime import timedelta

import procrastinate
import structlog
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from api.adapters.cognito import CognitoClient
from api.adapters.dns_resolver import DnsResolver
from api.adapters.stripe import StripeGateway
from api.app.jobs.stalled import MAINTENANCE_QUEUE
from api.audit.retention import retain
from api.billing.reconcile import reconcile, report
from api.identity.membership.pool_users import delete_orphans
from api.identity.sso.recheck import recheck_due
from api.identity.sso.saml_refresh import upkeep
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker

log = structlog.get_logger(__name__)

PERIODIC_QUEUE = "periodic"
"""The queue of the console's periodic tasks."""

PRUNE_JOBS_CRON = "50 4 * * *"


class BillingOutOfStep(Exception):
    """The reconciliation left differences with Stripe (report-only, or a fix failed); each
    one is in the worker's log as ``billing_difference``."""


class JobResources:
    """What the webhook and periodic tasks use, each opened on first use (a worker that runs
    only emails opens none) and closed by :meth:`aclose`: a database pool of the API's kind
    (asyncpg) of ``pool_size`` connections, the Stripe, Cognito and DNS clients of
    ``settings``."""

    def __init__(self, settings: Settings, *, pool_size: int = 2) -> None:
        self.settings = settings
        self.pool_size = pool_size

    @functools.cached_property
    def engine(self) -> AsyncEngine:
        """A webhook job or a periodic pass holds one connection at a time (one transaction
        per event or item)."""
        return create_engine(self.settings.database_url, self.pool_size)

    @functools.cached_property
    def sessionmaker(self) -> async_sessionmaker[AsyncSession]:
        return create_sessionmaker(self.engine)

    @functools.cached_property
    def stripe(self) -> StripeGateway:
        return StripeGateway(
            api_key=self.settings.stripe_secret_key.get_secret_value(),
            api_base=self.settings.stripe_api_base,
            timeout_s=self.settings.stripe_timeout_s,
        )

    @functools.cached_property
    def cognito(self) -> CognitoClient:
        return CognitoClient.from_settings(self.settings)

    @functools.cached_property
    def dns_resolver(self) -> DnsResolver:
        return DnsResolver.from_settings(self.settings)

    async def aclose(self) -> None:
        """Close what was opened."""
        opened = vars(self)
        if "stripe" in opened:
            await self.stripe.aclose()
        if "cognito" in opened:
            await self.cognito.aclose()
        if "engine" in opened:
            await self.engine.dispose()


async def recheck_domains(resources: JobResources) -> None:
    """One pass of the domain re-check."""
    found = await recheck_due(
        resources.sessionmaker,
        resources.dns_resolver,
        interval_s=resources.settings.domain_recheck_interval_s,
    )
    log.info("domain_recheck", kept=found.kept, lost=found.lost, unreachable=found.unreachable)


async def audit_retention(resources: JobResources) -> None:
    """One pass of the audit log's retention."""
    done = await retain(resources.engine, resources.settings.audit_retention_days)
    log.info("audit_retention", created=done.created, dropped=done.dropped)


async def reconcile_billing(resources: JobResources) -> None:
    """Compare every account with Stripe (and repair with ``BILLING_RECONCILE_FIX``).

    Raises:
        BillingOutOfStep: differences remain (each logged as ``billing_difference``).
    """
    fix = resources.settings.billing_reconcile_fix
    found = await reconcile(sessionmaker=resources.sessionmaker, stripe=resources.stripe, fix=fix)
    for difference in found:
        log.warning("billing_difference", difference=str(difference))
    lines, code = report(found, fix=fix)
    log.info("billing_reconciled", summary=lines[-1])
    if code:
        raise BillingOutOfStep(lines[-1])


async def delete_orphan_users(resources: JobResources) -> None:
    """Delete the pool users whose creation never committed a row."""
    done = await delete_orphans(
        resources.sessionmaker,
        resources.cognito,
        older_than=timedelta(minutes=resources.settings.orphan_user_age_min),
    )
    log.info("orphan_users", deleted=done.deleted, settled=done.settled, failed=done.failed)


async def saml_upkeep(resources: JobResources) -> None:
    """One pass of the SAML connections' upkeep."""
    done = await upkeep(resources.sessionmaker, resources.cognito, resources.settings)
    log.info(
        "saml_upkeep",
        changed=done.changed,
        unchanged=done.unchanged,
        failed=done.failed,
        notices=done.notices,
        resynced=done.resynced,
    )


PERIODIC_TASKS: tuple[tuple[str, str, Callable[[JobResources], Awaitable[None]]], ...] = (
    ("recheck_domains", "domain_recheck_cron", recheck_domains),
    ("audit_retention", "audit_retention_cron", audit_retention),
    ("reconcile_billing", "billing_reconcile_cron", reconcile_billing),
    ("delete_orphan_users", "orphan_user_cleanup_cron", delete_orphan_users),
    ("saml_upkeep", "saml_upkeep_cron", saml_upkeep),
)
"""Each periodic task: its name, the setting of its schedule, what it runs."""


def register(app: procrastinate.App, settings: Settings, resources: JobResources) -> None:
    """Add every periodic task whose schedule is set in ``settings``, and the daily pruning of
    old jobs, to ``app``; the tasks work with ``resources``."""
    for name, setting, work in PERIODIC_TASKS:
        cron = getattr(settings, setting)
        if cron:
            _schedule(app, name, cron, PERIODIC_QUEUE, functools.partial(work, resources))
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
