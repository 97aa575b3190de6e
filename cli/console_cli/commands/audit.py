"""``console-cli audit``: the account's audit log (the contract's ``activity`` tag) over a range
of time, filtered by action or actor, as a table, JSON, or the console's own CSV export."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import click

from console_cli.console import Console, json_option, pass_console
from console_cli.errors import expect, expect_content
from console_cli.generated.api.activity import export_audit_events, list_audit_events
from console_cli.generated.models import AuditAction, AuditEvent, AuditEventsResponse
from console_cli.generated.types import UNSET, Unset
from console_cli.output import show, write_bytes
from console_cli.params import Moment

PAGE_SIZE = 100  # the contract's maximum of limit
HEADERS = ("TIME", "ACTOR", "ACTION", "TARGET", "FROM ADDRESS")


@click.group()
def audit() -> None:
    """Read the account's audit log (Owners and Admins)."""


@audit.command("list")
@click.option("--from", "from_", type=Moment(), help="Events at or after this time.")
@click.option("--to", type=Moment(), help="Events before this time.")
@click.option(
    "--action",
    "actions",
    multiple=True,
    type=click.Choice([action.value for action in AuditAction]),
    metavar="ACTION",
    help="Only this action, such as user.invited or api_key.rolled (repeat for several).",
)
@click.option("--actor", type=click.UUID, help="Only the events of this user id.")
@click.option(
    "--csv", "as_csv", is_flag=True, help="Print the console's CSV export of the events instead."
)
@json_option
@pass_console
def list_events(
    console: Console,
    from_: datetime | None,
    to: datetime | None,
    actions: tuple[str, ...],
    actor: uuid.UUID | None,
    as_csv: bool,
) -> None:
    """List the audit log's events in a range. Newest first; all of them without --from and
    --to. TIME is an ISO 8601 date or date and time, in UTC unless it names its offset."""
    if as_csv and console.json:
        raise click.UsageError("--csv and --json: choose one")
    filters: dict[str, Any] = {
        "actor_id": actor if actor is not None else UNSET,
        "action": [AuditAction(action) for action in actions] if actions else UNSET,
        "from_": from_ if from_ is not None else UNSET,
        "to": to if to is not None else UNSET,
    }
    if as_csv:
        answer = export_audit_events.sync_detailed(client=console.client, **filters)
        write_bytes(expect_content(answer))
        return
    events = list(_events(console, filters))
    show(console, [event.to_dict() for event in events], HEADERS, [_row(e) for e in events])


def _events(console: Console, filters: dict[str, Any]) -> Iterator[AuditEvent]:
    """Every event the filters select, page after page."""
    cursor: str | Unset = UNSET
    while True:
        answer = list_audit_events.sync_detailed(
            client=console.client, cursor=cursor, limit=PAGE_SIZE, **filters
        )
        page = expect(answer, AuditEventsResponse)
        yield from page.events
        if not isinstance(page.next_cursor, str):
            return
        cursor = page.next_cursor


def _row(event: AuditEvent) -> tuple[Any, ...]:
    target = event.target.label if event.target is not None else None
    return (event.occurred_at, event.actor.email, event.action, target, event.client_address)
