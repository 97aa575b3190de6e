"""The account's billing cycles (up to 12, oldest first, the current one last, from
``GET /web/account``), and ``--cycle``, which names one of them."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import click

from console_cli.console import Console
from console_cli.errors import CliError, ExitCode, expect
from console_cli.generated.api.account import get_account
from console_cli.generated.models import AccountResponse, UsageEntry

CURRENT = "current"

cycle_option = click.option(
    "--cycle",
    default=CURRENT,
    show_default=True,
    metavar="CYCLE",
    help=(
        "The billing cycle: 'current', 'previous', the date it started or a date within it "
        "(YYYY-MM-DD, UTC, as `usage cycles` shows), or its start in epoch milliseconds."
    ),
)
"""``--cycle``: which billing cycle a command reads."""


def cycles(console: Console) -> list[UsageEntry]:
    """The account's billing cycles, oldest first, the current one last."""
    return expect(get_account.sync_detailed(client=console.client), AccountResponse).account.usage


def started(cycle: UsageEntry) -> datetime:
    """When ``cycle`` started (UTC)."""
    return datetime.fromtimestamp(cycle.start_ms / 1000, tz=UTC)


def find_cycle(console: Console, reference: str) -> UsageEntry:
    """The cycle ``reference`` names (see :data:`cycle_option`); one the console does not show
    is not found."""
    shown = cycles(console)
    wanted = reference.strip().lower()
    if wanted in (CURRENT, "previous"):
        index = -1 if wanted == CURRENT else -2
        if len(shown) >= -index:
            return shown[index]
    elif wanted.isdigit():
        for cycle in shown:
            if cycle.start_ms == int(wanted):
                return cycle
    else:
        try:
            day = date.fromisoformat(wanted)
        except ValueError:
            raise click.BadParameter(
                f"{reference!r} is not 'current', 'previous', a date or epoch milliseconds",
                param_hint="'--cycle'",
            ) from None
        # The cycle that started on the day, else the one the day is in.
        end_of_day = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
        for cycle in reversed(shown):
            if started(cycle) < end_of_day:
                return cycle
    raise CliError(
        "NotFound", f"no billing cycle {reference} among the account's", ExitCode.NOT_FOUND
    )
