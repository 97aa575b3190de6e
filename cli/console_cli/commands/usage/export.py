"""``console-cli usage export``: one billing cycle's usage per day and platform as the console's
CSV export (``GET /web/usage/export``)."""

from __future__ import annotations

import click

from console_cli.commands.usage._cycles import cycle_option, epoch_ms, find_cycle
from console_cli.console import Console, pass_console
from console_cli.errors import expect_content
from console_cli.generated.api.usage import export_usage
from console_cli.generated.types import UNSET
from console_cli.output import write_bytes


@click.command("export")
@cycle_option
@click.option("--label", help="The label to break requests down by (default: the cycle's first).")
@pass_console
def command(console: Console, cycle: str, label: str | None) -> None:
    """Print a cycle's usage per day as CSV. One row per day and platform."""
    start_ms = epoch_ms(find_cycle(console, cycle).start)
    answer = export_usage.sync_detailed(
        client=console.client, cycle_start_ms=start_ms, label=label if label else UNSET
    )
    write_bytes(expect_content(answer))
