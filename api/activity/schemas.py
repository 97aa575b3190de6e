"""Wire shapes of the Activity page (README "Audit log"): the filters, an event as shown,
a page of events and the actors of the filter."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Annotated

from pydantic import AwareDatetime, BeforeValidator, Field, JsonValue

from api.audit import AuditAction
from api.kernel.schemas import ApiModel

PAGE_SIZE = 50
MAX_PAGE_SIZE = 100

_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T")


def _date_time_text(value: object) -> object:
    # The contract says format: date-time (RFC 3339); pydantic would also read a number as a
    # Unix time ("0.5"), which the contract does not promise.
    if isinstance(value, str) and not _DATE_TIME.match(value):
        raise ValueError("Must be a date and time such as 2026-11-24T00:00:00Z")
    return value


DateTimeWithOffset = Annotated[AwareDatetime, BeforeValidator(_date_time_text)]


class AuditEventFilters(ApiModel):
    """Which events: every filter left out matches every event. ``from`` is inclusive and
    ``to`` exclusive (``from <= occurredAt < to``), so consecutive ranges never overlap."""

    actor_id: uuid.UUID | None = Field(
        None,
        description="Only the events of this user (their id stays in the log after they are "
        "deleted; GET /web/audit-events/actors lists the actors of the log).",
    )
    action: list[AuditAction] = Field(
        default_factory=list,
        description="Only these actions (repeat the parameter for several); all when empty.",
    )
    from_: DateTimeWithOffset | None = Field(
        None, alias="from", description="Events at or after this time (with its UTC offset)."
    )
    to: DateTimeWithOffset | None = Field(
        None, description="Events before this time (with its UTC offset), not at it."
    )


class AuditEventsQuery(AuditEventFilters):
    """``GET /web/audit-events``: the filters, and which page."""

    cursor: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$(?!\n)",
        description="The ``nextCursor`` of the previous page; the first page without it.",
    )
    limit: int = Field(PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE, description="Events per page.")


class AuditActor(ApiModel):
    """Who acted, as they were named when they did."""

    id: uuid.UUID | None = Field(
        description="Their user id, kept after the user is deleted; null when no user acted."
    )
    name: str
    email: str


class AuditTarget(ApiModel):
    """What the action was done to: ``user``, ``account``, ``api_key``, ``sso_domain``,
    ``subscription``, ``payment_method`` or ``invoice``, its id and how the console named it."""

    type: str
    id: str | None
    label: str


class FieldChange(ApiModel):
    """A changed field's value before and after (JSON values; never a secret)."""

    from_: JsonValue = Field(alias="from")
    to: JsonValue


class AuditEvent(ApiModel):
    """One event of the log."""

    id: uuid.UUID
    occurred_at: datetime
    actor: AuditActor
    client_address: str = Field(description="The IP address the request came from.")
    action: AuditAction
    target: AuditTarget | None
    changes: dict[str, FieldChange] = Field(
        description="The fields the action changed, by name; empty when it changed none."
    )


class AuditEventsResponse(ApiModel):
    """A page of the log, newest first."""

    events: list[AuditEvent]
    next_cursor: str | None = Field(
        description="Pass it as ``cursor`` for the next page; null on the last page."
    )


class AuditActorsResponse(ApiModel):
    """Everyone who appears in the log as an actor, by name (deleted users included, under
    the name and email of their latest event)."""

    actors: list[AuditActor]
