"""The daily re-check of verified domains (README "Verified domains").

Every verified domain's TXT record is looked up again once ``DOMAIN_RECHECK_INTERVAL_S``
(a day) has passed since its last check. A record that is gone (or a domain that no longer
exists) makes the domain Lost: auto-join of Google identities for it stops at once, and every
user of the account gets an email (api/identity/sso/notices.py), deferred to the job engine in the
transaction that records the loss. A lookup that fails (timeout,
SERVFAIL) changes nothing; the domain is tried again at the next pass.

Two ways to run it, safe together: each due row is claimed with ``SELECT ... FOR UPDATE SKIP
LOCKED`` in a transaction of its own, so a row is checked by one process at a time and never
twice in a pass.

- on the job worker: the periodic task ``recheck_domains`` (api/app/jobs/periodic.py) looks for due
  domains at every tick of ``DOMAIN_RECHECK_CRON`` (every 10 minutes), one run at a time
  across the workers;
- as a command: ``python -m api.app.commands.recheck`` checks the due domains once (``--all``: every
  verified domain now); it prints what it did and exits 2 when some lookup failed, 0 otherwise.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.adapters.dns_resolver import DnsLookupFailed, DnsResolver
from api.identity.sso import repository
from api.identity.sso.notices import DomainLostNotice, defer_domain_lost
from api.identity.sso.service import record_check, record_lost
from api.identity.sso.verification import failure_of
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker

log = structlog.get_logger(__name__)


@dataclass
class RecheckReport:
    """What one pass did: domains still verified, lost, and not looked up (DNS failed)."""

    kept: int = 0
    lost: int = 0
    unreachable: int = 0

    @property
    def checked(self) -> int:
        """Domains the pass took up."""
        return self.kept + self.lost + self.unreachable


async def recheck_due(
    sessionmaker: async_sessionmaker[AsyncSession],
    resolver: DnsResolver,
    *,
    interval_s: float,
    now: datetime | None = None,
) -> RecheckReport:
    """Re-check every verified domain last checked more than ``interval_s`` seconds before
    ``now`` (default: the current time), one transaction per domain; the emails to the users of
    accounts whose domain was lost are deferred in that domain's transaction.

    Returns the pass's counts. Raises only what the database raises.
    """
    checked_before = (now or datetime.now(UTC)) - timedelta(seconds=interval_s)
    taken: set[uuid.UUID] = set()
    report = RecheckReport()
    while True:
        async with sessionmaker() as db, db.begin():
            row = await repository.next_due(db, checked_before, taken)
            if row is None:
                break
            taken.add(row.id)
            try:
                lookup = await resolver.txt(row.domain)
            except DnsLookupFailed as exc:
                log.warning("domain_recheck_unreachable", domain=row.domain, error=str(exc))
                report.unreachable += 1
                continue
            failure = failure_of(lookup, row.token)
            checked_at = datetime.now(UTC)
            record_check(row=row, failure=failure, now=checked_at, was_verified=True)
            if failure is None:
                report.kept += 1
            else:
                report.lost += 1
                log.info("domain_lost", domain=row.domain, account_id=str(row.account_id))
                await record_lost(db=db, row=row)
                notice = DomainLostNotice(
                    domain_id=row.id,
                    lost_at=checked_at,
                    account_name=await repository.account_name(db, row.account_id),
                    domain=row.domain,
                    token=row.token,
                    failure=failure,
                    recipients=tuple(await repository.user_emails(db, row.account_id)),
                )
                await defer_domain_lost(db, notice)
    return report


async def run_once(settings: Settings, *, every: bool = False) -> RecheckReport:
    """One pass with the database and resolver of ``settings`` (the command's work):
    the due domains, or with ``every`` all verified domains now.

    Raises:
        ValueError: ``DATABASE_URL`` is not set.
    """
    settings.check_database()
    engine = create_engine(settings.database_url, pool_size=2)
    resolver = DnsResolver.from_settings(settings)
    try:
        return await recheck_due(
            create_sessionmaker(engine),
            resolver,
            interval_s=0 if every else settings.sso.domain_recheck_interval_s,
        )
    finally:
        await engine.dispose()
