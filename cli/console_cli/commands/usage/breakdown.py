"""``console-cli usage breakdown``: where one billing cycle's requests went, by API key and by
the values of a label: the cycle as one bucket of ``GET /web/usage``, grouped by ``apiKey``,
then by ``label:<name>`` (docs/integrators/usage-api.md). The answer keeps the shape of the
deprecated ``GET /web/usage/breakdown`` it replaces (the contract's ``UsageBreakdown``: the
same JSON, the same table), which this command no longer calls."""

from __future__ import annotations

import click

from console_cli.commands.usage._cycles import cycle_option, epoch_ms, find_cycle
from console_cli.commands.usage._range import BAD_LABEL_NAME, LABEL_NAME, Query, pages
from console_cli.console import Console, json_option, pass_console
from console_cli.generated.models import (
    Granularity,
    KeyUsage,
    LabelValueUsage,
    UsageBreakdown,
    UsageBucket,
    UsageGroupKind,
    UsageResponse,
    UsageShare,
)
from console_cli.output import print_json, table

TOP_LABEL_VALUES = 10
"""How many of the label's values the breakdown names, as the deprecated operation did; the
others add up in ``otherValues``."""


def _label_name(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value and not LABEL_NAME.fullmatch(value):
        raise click.BadParameter(f"{value!r}: {BAD_LABEL_NAME}")
    return value or None


@click.command("breakdown")
@cycle_option
@click.option(
    "--label",
    callback=_label_name,
    help="The label to break requests down by (default: the cycle's first).",
)
@json_option
@pass_console
def command(console: Console, cycle: str, label: str | None) -> None:
    """Show where a billing cycle's requests went. By API key, and by the values of a
    label."""
    breakdown = _breakdown(console, find_cycle(console, cycle), label)
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


def _breakdown(console: Console, cycle: UsageBucket, label: str | None) -> UsageBreakdown:
    """The breakdown of ``cycle`` by key and by ``label`` (None: the first of the cycle's label
    names), as the deprecated ``GET /web/usage/breakdown`` answered it: every key that sent
    requests, most first; the requests of no recorded key; the label's top values, the rest of
    its values, and the requests without it. Everything adds up to the cycle's requests."""
    by_key = _cycle(console, cycle, "apiKey")
    total = by_key.buckets[0].requests
    keys = {str(key.id): key for key in by_key.api_keys}
    sent = [
        (keys[group.group], group.requests)
        for group in by_key.buckets[0].groups
        if group.kind is UsageGroupKind.APIKEY and group.group in keys and group.requests
    ]
    label = label or next(iter(by_key.labels), None)
    values: list[tuple[str, int]] = []
    labelled = 0  # the requests of the records carrying the label, whatever its value
    if label in by_key.labels:  # else no record of the cycle carries it
        groups = _cycle(console, cycle, f"label:{label}").buckets[0].groups
        values = [
            (group.group, group.requests)
            for group in groups
            if group.kind is UsageGroupKind.LABELVALUE and group.group is not None
        ]
        labelled = sum(g.requests for g in groups if g.kind is not UsageGroupKind.WITHOUTLABEL)
    top = values[:TOP_LABEL_VALUES]

    def share(requests: int) -> UsageShare:
        return UsageShare(requests=requests, share=requests / total if total else 0.0)

    return UsageBreakdown(
        cycle_start_ms=epoch_ms(cycle.start),
        requests=total,
        by_key=[
            KeyUsage(
                key_id=key.id,
                masked=key.masked,
                expired=key.expired,
                requests=requests,
                share=share(requests).share,
            )
            for key, requests in sent
        ],
        unknown_key=share(total - sum(requests for _, requests in sent)),
        labels=by_key.labels,
        label=label,
        by_label=[
            LabelValueUsage(value=value, requests=requests, share=share(requests).share)
            for value, requests in top
        ],
        other_values=share(labelled - sum(requests for _, requests in top)),
        unlabelled=share(total - labelled),
    )


def _cycle(console: Console, cycle: UsageBucket, group_by: str) -> UsageResponse:
    """``cycle`` alone, grouped by ``group_by``: one bucket, on one page."""
    query = Query(Granularity.CYCLE, cycle.start, cycle.end, group_by)
    return next(pages(console, query))
