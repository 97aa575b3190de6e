"""Reading the audit log (README "Audit log"): pages of events for the Activity page, the
actors its filter offers, and the CSV export.

Pages use keyset pagination: a page's ``nextCursor`` is the position ``(occurred_at, id)`` of
its last event, opaque to clients (base64url of the time in microseconds since the epoch and
the id's 16 bytes), and the next page starts strictly after it in the order
``occurred_at DESC, id DESC``. Events recorded meanwhile are newer, so they never shift a page
already shown: no event is skipped or shown twice, equal times included.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
import struct
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncEngine

from api.activity import repository
from api.activity.errors import InvalidCursor
from api.activity.repository import Position, Reader
from api.activity.schemas import (
    AuditActor,
    AuditActorsResponse,
    AuditEvent,
    AuditEventFilters,
    AuditEventsQuery,
    AuditEventsResponse,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CURSOR = struct.Struct(">q16s")  # microseconds since the epoch, the id's bytes


def encode_cursor(position: Position) -> str:
    """The opaque cursor of ``(occurred_at, id)``: 32 base64url characters."""
    occurred_at, event_id = position
    micros = (occurred_at - _EPOCH) // timedelta(microseconds=1)
    return base64.urlsafe_b64encode(_CURSOR.pack(micros, event_id.bytes)).decode().rstrip("=")


def decode_cursor(cursor: str) -> Position:
    """The ``(occurred_at, id)`` a cursor of :func:`encode_cursor` holds.

    Raises:
        InvalidCursor: not such a cursor (wrong length, alphabet or time).
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        micros, id_bytes = _CURSOR.unpack(raw)
        return _EPOCH + timedelta(microseconds=micros), uuid.UUID(bytes=id_bytes)
    except (binascii.Error, struct.error, ValueError, OverflowError) as exc:
        raise InvalidCursor() from exc


def _filters(filters: AuditEventFilters) -> dict[str, Any]:
    return {
        "actor_id": filters.actor_id,
        "actions": {action.value for action in filters.action},
        "occurred_from": filters.from_,
        "occurred_to": filters.to,
    }


def _event(row: Row[Any]) -> AuditEvent:
    return AuditEvent.model_validate(
        {
            "id": row.id,
            "occurred_at": row.occurred_at,
            "actor": {"id": row.actor_user_id, "name": row.actor_name, "email": row.actor_email},
            "client_address": row.client_address,
            "action": row.action,
            "target": (
                {"type": row.target_type, "id": row.target_id, "label": row.target_label or ""}
                if row.target_type is not None
                else None
            ),
            "changes": row.changes or {},
        }
    )


async def list_events(
    reader: Reader,
    account_id: uuid.UUID,
    query: AuditEventsQuery,
) -> AuditEventsResponse:
    """``GET /web/audit-events``: up to ``query.limit`` events of the account matching the
    query's filters, newest first, after ``query.cursor`` (the previous page's
    ``nextCursor``), and the next page's cursor (None when no event follows).

    Raises:
        InvalidCursor: ``query.cursor`` is not one this function gave.
    """
    limit = query.limit
    before = decode_cursor(query.cursor) if query.cursor is not None else None
    rows = await repository.events(
        reader,
        repository.events_query(account_id, **_filters(query), before=before, limit=limit + 1),
    )
    shown = rows[:limit]
    next_cursor = (
        encode_cursor((shown[-1].occurred_at, shown[-1].id)) if len(rows) > limit else None
    )
    return AuditEventsResponse(events=[_event(row) for row in shown], next_cursor=next_cursor)


async def list_actors(reader: Reader, account_id: uuid.UUID) -> AuditActorsResponse:
    """``GET /web/audit-events/actors``: every user who acted in the account's log, by name."""
    rows = await repository.actors(reader, account_id)
    return AuditActorsResponse(
        actors=[
            AuditActor(id=r.actor_user_id, name=r.actor_name, email=r.actor_email) for r in rows
        ]
    )


CSV_COLUMNS = (
    "id",
    "occurred_at",
    "actor_id",
    "actor_name",
    "actor_email",
    "client_address",
    "action",
    "target_type",
    "target_id",
    "target_label",
    "changes",
)
EXPORT_BATCH = 1000
# OWASP "CSV Injection": a cell starting with one of these is a formula to a spreadsheet.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: str | None) -> str:
    """``value`` as a CSV cell that no spreadsheet runs as a formula: prefixed with ``'``
    when it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (OWASP "CSV
    Injection"); None is empty."""
    if value is None:
        return ""
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _csv_row(row: Row[Any]) -> list[str]:
    occurred_at: datetime = row.occurred_at
    changes = json.dumps(row.changes, ensure_ascii=False) if row.changes else None
    cells = (
        str(row.id),
        occurred_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        str(row.actor_user_id) if row.actor_user_id else None,
        row.actor_name,
        row.actor_email,
        row.client_address,
        row.action,
        row.target_type,
        row.target_id,
        row.target_label,
        changes,
    )
    return [csv_cell(cell) for cell in cells]


def _csv_text(rows: Sequence[Sequence[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


def export_filename(now: datetime | None = None) -> str:
    """``audit-log-<UTC date>.csv``: the download's name."""
    return f"audit-log-{(now or datetime.now(UTC)).date().isoformat()}.csv"


async def export_csv(
    engine: AsyncEngine, account_id: uuid.UUID, filters: AuditEventFilters
) -> AsyncIterator[str]:
    """``GET /web/audit-events/export``: every event of the account matching ``filters``,
    newest first, as CSV text (RFC 4180, CRLF): a header row of ``CSV_COLUMNS``, then one row
    per event with its id, its time in ISO 8601 UTC (microseconds, ``Z``), the actor's user id, name
    and email, the client's address, the action, the target's type, id and label, and the
    changes as JSON text (``{"field": {"from": ..., "to": ...}}``, empty when none). Every
    cell is guarded by :func:`csv_cell`.

    Streamed without a cap: ``EXPORT_BATCH`` events at a time with the keyset of
    :func:`list_events`, each batch on a connection of ``engine`` (the autocommit one) held
    only while it is read, so memory stays flat and no transaction stays open however long
    the download takes (the log holds at most a year of events, AUDIT_RETENTION_DAYS). Events
    recorded after the export started are newer than its first row and not included.
    """
    yield _csv_text([CSV_COLUMNS])
    criteria = _filters(filters)
    before: Position | None = None
    while True:
        async with engine.connect() as connection:
            batch = repository.events_query(
                account_id, **criteria, before=before, limit=EXPORT_BATCH
            )
            rows = await repository.events(connection, batch)
        if rows:
            yield _csv_text([_csv_row(row) for row in rows])
        if len(rows) < EXPORT_BATCH:
            return
        before = (rows[-1].occurred_at, rows[-1].id)
