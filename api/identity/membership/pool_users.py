"""Pool users the console creates, and the clean-up of those a crash left without a console row
(README "Background work").

Registration and invitations create a Cognito user, then insert the user's row in the request's
transaction; a failure undoes the pool user at once (``api.kernel.db.undo_on_rollback``), but a
crash
between the two (the process killed, the node lost) leaves a pool user that no row names, and
its address can then neither register nor be invited. So before the pool is asked:

1. :meth:`PoolUserLedger.creating` commits a ``pending_pool_user`` row on a connection of its
   own (the side pool: it survives whatever happens to the request), then deletes it again in
   the request's transaction. That delete holds the row locked until the request ends: a
   commit (the user's row is in) removes it for good, a rollback or a crash brings it back.
2. :func:`delete_orphans` (a periodic job of the worker, ``ORPHAN_USER_CLEANUP_CRON``) takes
   the rows older than ``ORPHAN_USER_AGE_MIN`` with ``FOR UPDATE SKIP LOCKED``: one still locked
   belongs to a request in flight and is skipped, whatever its age. For each one taken it
   deletes the pool user unless a user row names it, then the row, in one transaction.

A creation that starts while the clean-up holds an older row of the same username waits for it
(the upsert below locks the row), so the clean-up never deletes a pool user created after it
looked. Only pool users the console began to create are ever deleted: federated users (made by
Cognito's hosted UI) and users made in the AWS console have no such row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated

import structlog
from fastapi import Depends, Request
from sqlalchemy import delete, exists, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from api.adapters.cognito import CognitoClient, CognitoError, CognitoUnavailable, UserNotFoundError
from api.models import PendingPoolUser, User
from api.principal.resources import resources_of

log = structlog.get_logger(__name__)


class PoolUserLedger:
    """Records the pool users being created (see the module docstring).

    Args:
        side_engine: an autocommit engine whose connections are not the request's (the API's
            side pool), so the record is committed before the pool is asked.
    """

    def __init__(self, side_engine: AsyncEngine) -> None:
        self._engine = side_engine

    async def creating(self, db: AsyncSession, username: str) -> None:
        """Record that the pool user ``username`` is about to be created, committed at once,
        and hold the record in ``db``'s transaction, which removes it when it commits.

        Call it before AdminCreateUser, in the transaction that inserts the user's row. Waits
        while :func:`delete_orphans` holds an older record of ``username``. Raises only what
        the database raises.
        """
        upsert = insert(PendingPoolUser).values(username=username, started_at=datetime.now(UTC))
        async with self._engine.connect() as connection:
            await connection.execute(
                upsert.on_conflict_do_update(
                    index_elements=[PendingPoolUser.username],
                    set_={"started_at": upsert.excluded.started_at},
                )
            )
        await db.execute(delete(PendingPoolUser).where(PendingPoolUser.username == username))


@dataclass
class OrphanReport:
    """What one clean-up did: pool users deleted, records dropped because a user row names
    their username (or the pool user was already gone), and records kept because Cognito
    failed (tried again at the next run)."""

    deleted: int = 0
    settled: int = 0
    failed: int = 0


async def delete_orphans(
    sessionmaker: async_sessionmaker[AsyncSession],
    cognito: CognitoClient,
    *,
    older_than: timedelta,
    now: datetime | None = None,
) -> OrphanReport:
    """Delete every pool user whose creation began more than ``older_than`` before ``now``
    (default: the current time) and whose console row never committed; one transaction per
    record, each record locked (``FOR UPDATE SKIP LOCKED``) from before the user row is looked
    for until it is gone. A record locked by a request in flight is skipped.

    Returns the counts. Raises only what the database raises (a Cognito failure is counted and
    logged, and its record kept).
    """
    cutoff = (now or datetime.now(UTC)) - older_than
    taken: set[str] = set()
    report = OrphanReport()
    while True:
        async with sessionmaker() as db, db.begin():
            username = await db.scalar(
                select(PendingPoolUser.username)
                .where(PendingPoolUser.started_at < cutoff, PendingPoolUser.username.not_in(taken))
                .order_by(PendingPoolUser.started_at)
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            if username is None:
                return report
            taken.add(username)
            if await db.scalar(select(exists().where(User.identity_id == username))):
                report.settled += 1
            else:
                try:
                    await cognito.admin_delete_user(username)
                except UserNotFoundError:
                    report.settled += 1  # undone already (the request's own undo)
                except (CognitoError, CognitoUnavailable) as exc:
                    log.warning("orphan_pool_user_not_deleted", username=username, error=str(exc))
                    report.failed += 1
                    continue
                else:
                    log.info("orphan_pool_user_deleted", username=username)
                    report.deleted += 1
            await db.execute(delete(PendingPoolUser).where(PendingPoolUser.username == username))


async def _pool_user_ledger(request: Request) -> PoolUserLedger:
    return PoolUserLedger(resources_of(request.app).side_engine)


PoolUsers = Annotated[PoolUserLedger, Depends(_pool_user_ledger)]
"""A route's :class:`PoolUserLedger` over the process's side pool."""
