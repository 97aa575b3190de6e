"""``console-cli usage cycles``: the totals of each billing cycle (``GET /web/account``)."""

from __future__ import annotations

import click

from console_cli.commands.usage._cycles import cycles, started
from console_cli.console import Console, json_option, pass_console
from console_cli.output import show

HEADERS = (
    "CYCLE START",
    "START MS",
    "REQUESTS",
    "WEB RUNS",
    "NATIVE MOBILE RUNS",
    "API RUNS",
)


@click.command("cycles")
@json_option
@pass_console
def command(console: Console) -> None:
    """List the billing cycles and their totals. Up to 12, the current one last: metered
    requests (what the plan's allowance limits) and each platform's test runs."""
    shown = cycles(console)
    rows = [
        (
            started(cycle).strftime("%Y-%m-%d %H:%M UTC"),
            cycle.start_ms,
            cycle.requests,
            cycle.web.runs,
            cycle.native_mobile.runs,
            cycle.api.runs,
        )
        for cycle in shown
    ]
    show(console, [cycle.to_dict() for cycle in shown], HEADERS, rows)
