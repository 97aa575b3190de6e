"""The account's billing cycles (up to 12, oldest first, the current one last), and
``--cycle``, which names one of them: the cycles with their totals as ``GET /web/account``
shows them (``usage cycles``), and a cycle that ``--cycle`` names as a bucket of
``GET /web/usage?granularity=cycle``, which the usage:read scope alone may read."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import click

from console_cli.commands.usage._range import Query, pages
from console_cli.console import Console
from console_cli.errors import CliError, ExitCode, expect
from console_cli.generated.api.account import get_account
from console_cli.generated.models import AccountResponse, Granularity, UsageBucket, UsageEntry

CURRENT = "current"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

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


def epoch_ms(at: datetime) -> int:
    """``at`` in whole epoch milliseconds, rounded down as the console rounds a cycle's
    ``startMs`` (integer arithmetic: a float timestamp can land a millisecond low)."""
    return (at - _EPOCH) // timedelta(milliseconds=1)


def find_cycle(console: Console, reference: str) -> UsageBucket:
    """The cycle ``reference`` names (see :data:`cycle_option`), with its totals; one the
    console does not keep is not found."""
    shown = [
        bucket
        for page in pages(console, Query(Granularity.CYCLE))  # the cycles kept, oldest first
        for bucket in page.buckets
    ]
    wanted = reference.strip().lower()
    if wanted in (CURRENT, "previous"):
        index = -1 if wanted == CURRENT else -2
        if len(shown) >= -index:
            return shown[index]
    elif wanted.isdigit():
        for cycle in shown:
            if epoch_ms(cycle.start) == int(wanted):
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
            if cycle.start < end_of_day:
                return cycle
    raise CliError(
        "NotFound", f"no billing cycle {reference} among the account's", ExitCode.NOT_FOUND
    )
