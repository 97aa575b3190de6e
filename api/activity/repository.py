"""Queries of the audit log, always scoped to one account.

Every query walks ``ix_audit_event_account_id_occurred_at`` (account, time, id) of each month
partition, newest first: the account's rows only, and the time bounds (the range filters and
the cursor) prune the partitions outside them.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, Select, func, or_, select, tuple_
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from api.models import AuditEvent

Reader = AsyncSession | AsyncConnection
Position = tuple[datetime, uuid.UUID]
"""Where a page ends: the ``(occurred_at, id)`` of its last event."""

_EVENT_COLUMNS = (
    AuditEvent.id,
    AuditEvent.occurred_at,
    func.coalesce(AuditEvent.actor_user_id, AuditEvent.actor_token_id).label("actor_user_id"),
    AuditEvent.actor_name,
    AuditEvent.actor_email,
    AuditEvent.client_address,
    AuditEvent.action,
    AuditEvent.target_type,
    AuditEvent.target_id,
    AuditEvent.target_label,
    AuditEvent.changes,
)


def events_query(
    account_id: uuid.UUID,
    *,
    actor_id: uuid.UUID | None,
    actions: Collection[str],
    occurred_from: datetime | None,
    occurred_to: datetime | None,
    before: Position | None,
    limit: int,
) -> Select[Any]:
    """Up to ``limit`` events of the account, ordered ``occurred_at DESC, id DESC``, that
    match every filter given: the actor's user id, one of ``actions`` (all when empty),
    ``occurred_from <= occurred_at < occurred_to``, and strictly after ``before`` in that
    order. Rows have the columns of ``_EVENT_COLUMNS`` by name."""
    where: list[ColumnElement[bool]] = [AuditEvent.account_id == account_id]
    if actor_id is not None:  # a user, or an access token
        where.append(
            or_(AuditEvent.actor_user_id == actor_id, AuditEvent.actor_token_id == actor_id)
        )
    if actions:
        where.append(AuditEvent.action.in_(sorted(actions)))
    if occurred_from is not None:
        where.append(AuditEvent.occurred_at >= occurred_from)
    if occurred_to is not None:
        where.append(AuditEvent.occurred_at < occurred_to)
    if before is not None:
        # The row comparison is the index condition; the plain bound lets PostgreSQL prune
        # the partitions newer than the cursor, which a row comparison does not.
        where.append(tuple_(AuditEvent.occurred_at, AuditEvent.id) < tuple_(*before))
        where.append(AuditEvent.occurred_at <= before[0])
    return (
        select(*_EVENT_COLUMNS)
        .where(*where)
        .order_by(AuditEvent.occurred_at.desc(), AuditEvent.id.desc())
        .limit(limit)
    )


async def events(reader: Reader, query: Select[Any]) -> Sequence[Row[Any]]:
    """The rows of an :func:`events_query`."""
    rows: Sequence[Row[Any]] = (await reader.execute(query)).all()
    return rows


async def actors(reader: Reader, account_id: uuid.UUID) -> Sequence[Row[Any]]:
    """Each user or access token that acted in the account (``actor_user_id``: the user's or
    the token's id, ``actor_name``, ``actor_email``), named as in their latest event, ordered
    by name then email. Reads every event of the account's log once."""
    actor = func.coalesce(AuditEvent.actor_user_id, AuditEvent.actor_token_id)
    latest = (
        select(actor.label("actor_user_id"), AuditEvent.actor_name, AuditEvent.actor_email)
        .where(AuditEvent.account_id == account_id, actor.is_not(None))
        .ext(distinct_on(actor))
        .order_by(actor, AuditEvent.occurred_at.desc())
        .subquery()
    )
    query = select(latest).order_by(latest.c.actor_name, latest.c.actor_email)
    return (await reader.execute(query)).all()
