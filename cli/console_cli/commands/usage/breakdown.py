"""``console-cli usage breakdown``: where one billing cycle's requests went, by API key and by
the values of a label (``GET /web/usage/breakdown``)."""

from __future__ import annotations

import click

from console_cli.commands.usage._cycles import cycle_option, find_cycle
from console_cli.console import Console, json_option, pass_console
from console_cli.errors import expect
from console_cli.generated.api.usage import usage_breakdown
from console_cli.generated.models import UsageBreakdown, UsageShare
from console_cli.generated.types import UNSET
from console_cli.output import print_json, table


@click.command("breakdown")
@cycle_option
@click.option("--label", help="The label to break requests down by (default: the cycle's first).")
@json_option
@pass_console
def command(console: Console, cycle: str, label: str | None) -> None:
    """Show where a billing cycle's requests went. By API key, and by the values of a
    label."""
    start_ms = find_cycle(console, cycle).start_ms
    answer = usage_breakdown.sync_detailed(
        client=console.client, cycle_start_ms=start_ms, label=label if label else UNSET
    )
    breakdown = expect(answer, UsageBreakdown)
    if console.json:
        print_json(breakdown.to_dict())
        return
    click.echo(f"Requests: {breakdown.requests}\n")
    keys: list[tuple[str, bool | None, int, float]] = [
        (key.masked, key.expired, key.requests, key.share) for key in breakdown.by_key
    ]
    if breakdown.unknown_key.requests:
        keys.append(("(unknown key)", None, *_share(breakdown.unknown_key)))
    click.echo(table(("KEY", "EXPIRED", "REQUESTS", "SHARE"), keys))
    if breakdown.label is None:
        click.echo("\nNo labels in this cycle.")
        return
    values = [(value.value, value.requests, value.share) for value in breakdown.by_label]
    if breakdown.other_values.requests:
        values.append(("(other values)", *_share(breakdown.other_values)))
    if breakdown.unlabelled.requests:
        values.append(("(without the label)", *_share(breakdown.unlabelled)))
    others = ", ".join(name for name in breakdown.labels if name != breakdown.label)
    click.echo(f"\nBy label {breakdown.label}" + (f" (also: {others})" if others else "") + ":")
    click.echo(table((breakdown.label.upper(), "REQUESTS", "SHARE"), values))


def _share(part: UsageShare) -> tuple[int, float]:
    return (part.requests, part.share)
