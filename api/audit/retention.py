"""Retention of the audit log (kept 1 year: README "Audit log").

``audit_event`` is partitioned by month (the migration ``a0fa304125e7``). One pass, in one
transaction under an advisory lock (so replicas and the command never race):

- creates the partitions of the current month and the next ``MONTHS_AHEAD`` (rows of a month
  without one would land in the default partition, which nothing purges);
- drops every month partition that ends at or before ``now - AUDIT_RETENTION_DAYS`` (365):
  an event is kept at least a year and at most a year and a month. Dropping a partition is the
  table owner's right, so the application's role keeps no DELETE privilege on the log.

Two ways to run it:
- on the job worker: the periodic task ``audit_retention`` (api/app/jobs/periodic.py) at every tick
  of ``AUDIT_RETENTION_CRON`` (every 6 hours);
- as a command: ``python -m api.app.commands.retention`` prints what it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from api.kernel.config import Settings
from api.kernel.db import create_engine

log = structlog.get_logger(__name__)

MONTHS_AHEAD = 3
# pg_advisory_xact_lock key of this job ("audit" in ASCII).
_LOCK_KEY = 0x6175646974


@dataclass(frozen=True)
class RetentionReport:
    """What one pass did: month partitions created and dropped."""

    created: int
    dropped: int


async def retain(
    engine: AsyncEngine, retention_days: int, now: datetime | None = None
) -> RetentionReport:
    """One pass on ``engine`` (see the module's docstring); ``now`` (aware) defaults to the
    current time. Raises only what the database raises."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=retention_days)
    async with engine.begin() as connection:
        await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        created = await connection.scalar(
            text("SELECT audit_event_ensure_partitions(:ahead)"), {"ahead": MONTHS_AHEAD}
        )
        dropped = await connection.scalar(
            text("SELECT audit_event_drop_partitions_before(:cutoff)"), {"cutoff": cutoff}
        )
    return RetentionReport(created=created or 0, dropped=dropped or 0)


async def run_once(settings: Settings) -> RetentionReport:
    """One pass with the database of ``settings``. Raises ValueError when ``DATABASE_URL`` is
    not set."""
    settings.check_database()
    engine = create_engine(settings.database_url, pool_size=1)
    try:
        return await retain(engine, settings.audit.retention_days)
    finally:
        await engine.dispose()
