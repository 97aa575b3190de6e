"""``console-cli usage query``: the account's usage over a range, per hour, UTC day or billing
cycle, optionally per API key or per value of a label, every page of ``GET /web/usage``
(docs/integrators/usage-api.md), as a table, JSON, or the console's CSV."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import click

from console_cli.commands.usage._range import (
    BAD_LABEL_NAME,
    LABEL_NAME,
    MAX_PAGE,
    Query,
    csv_pages,
    pages,
)
from console_cli.console import Console, json_option, pass_console
from console_cli.generated.models import (
    Granularity,
    UsageApiKey,
    UsageBucket,
    UsageGroup,
    UsageGroupKind,
    UsageResponse,
)
from console_cli.output import cell, print_json, table, write_bytes
from console_cli.params import Moment

DEFAULT_DAYS = 7
GRANULARITIES = ("hour", "day", "cycle")  # the contract's Granularity, shortest first
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
API_KEY = "apiKey"
LABEL = "label:"
FIGURES = ("REQUESTS", "RECORDS", "RUNS", "WEB REQUESTS", "NATIVE MOBILE REQUESTS", "API REQUESTS")
UNNAMED = {
    UsageGroupKind.KEYNOTRECORDED: "(key not recorded)",
    UsageGroupKind.OTHERVALUES: "(other values)",
    UsageGroupKind.WITHOUTLABEL: "(without the label)",
}


class GroupBy(click.ParamType[str]):
    """``api-key``, or ``label:<name>``: the contract's ``apiKey`` or ``label:<name>``."""

    name = "GROUPING"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """The value of the query's ``groupBy``."""
        text = str(value).strip()
        if text.lower() in ("api-key", "apikey"):
            return API_KEY
        if not text.startswith(LABEL):
            self.fail(f"{value!r} is neither 'api-key' nor 'label:<name>'", param, ctx)
        if not LABEL_NAME.fullmatch(text.removeprefix(LABEL)):
            self.fail(f"{value!r}: {BAD_LABEL_NAME}", param, ctx)
        return text


@click.command("query")
@click.option(
    "--from", "from_", type=Moment(), help="The start of the range (default: 7 days before --to)."
)
@click.option("--to", type=Moment(), help="The end of the range, not included (default: now).")
@click.option(
    "--granularity",
    type=click.Choice(GRANULARITIES),
    default=Granularity.DAY.value,
    show_default=True,
    help="One row per UTC hour, UTC day or billing cycle.",
)
@click.option(
    "--group-by",
    type=GroupBy(),
    help="Split each row per API key ('api-key') or per value of a label ('label:project').",
)
@click.option("--csv", "as_csv", is_flag=True, help="Print the console's CSV instead.")
@click.option(
    "--page-size",
    type=click.IntRange(1, MAX_PAGE),
    metavar="N",
    default=MAX_PAGE,
    show_default=True,
    help="Rows (buckets) per request; every page is read whatever the size.",
)
@json_option
@pass_console
def command(
    console: Console,
    from_: datetime | None,
    to: datetime | None,
    granularity: str,
    group_by: str | None,
    as_csv: bool,
    page_size: int,
) -> None:
    """Show the usage of a range, per hour, day or cycle. Each UTC hour, UTC day or billing
    cycle of the range with its metered requests (what the plan's allowance counts), records,
    test runs and each platform's requests, then the range's total: every page of GET
    /web/usage.

    TIME is an ISO 8601 date (its 00:00 UTC) or date and time, in UTC unless it names its
    offset. The console widens the range to whole hours, days or cycles, within the 12 billing
    cycles it keeps (hours: 92 days at most). Without --from: the 7 days before --to, in whole
    days or hours (with --granularity cycle: every cycle kept); for a younger account, from
    its first billing cycle.

    With --group-by: a row per API key or label value of each hour, day or cycle with usage.
    """
    if as_csv and console.json:
        raise click.UsageError("--csv and --json: choose one")
    grain = Granularity(granularity)
    query = Query(grain, from_, to, group_by, page_size)
    if from_ is None and grain is not Granularity.CYCLE:
        start = _default_start(grain, to or datetime.now(UTC))
        query = Query(grain, start, to, group_by, page_size, start_is_ours=True)
    if as_csv:
        for index, content in enumerate(csv_pages(console, query)):
            # Each page starts with the header line: the first page's is the file's.
            write_bytes(content if index == 0 else content.partition(b"\n")[2])
        return
    read = list(pages(console, query))
    if console.json:
        print_json(_merged(read))
        return
    keys = {str(key.id): key for page in read for key in page.api_keys}
    buckets = [bucket for page in read for bucket in page.buckets]
    first = read[0]
    if first.group_by is None:
        click.echo(table(("START", *FIGURES), ((b.start, *_figures(b)) for b in buckets)))
    else:
        heading = "API KEY" if first.group_by == API_KEY else first.group_by.removeprefix(LABEL)
        rows = (
            (b.start, _name(group, keys), *_figures(group)) for b in buckets for group in b.groups
        )
        click.echo(table(("START", heading.upper(), *FIGURES), rows))
    click.echo(f"\n{_total(buckets, first)}")


def _default_start(granularity: Granularity, end: datetime) -> datetime:
    """The start of the last 7 days before ``end`` in whole UTC hours or days: 7 days before
    it, up to the next bucket's start (the console widens ``from`` down to its bucket's, which
    would add an eighth, partial day)."""
    start = end.astimezone(UTC) - timedelta(days=DEFAULT_DAYS)
    step = timedelta(hours=1) if granularity is Granularity.HOUR else timedelta(days=1)
    floor = _EPOCH + (start - _EPOCH) // step * step
    return floor if floor == start else floor + step


def _figures(part: UsageBucket | UsageGroup) -> tuple[int, ...]:
    return (
        part.requests,
        part.records,
        part.runs,
        part.web.requests,
        part.native_mobile.requests,
        part.api.requests,
    )


def _name(group: UsageGroup, keys: dict[str, UsageApiKey]) -> str:
    """How a group reads: the key as the console shows it (``keys``: the answer's, by id), the
    label's value, or what the kinds without a name stand for."""
    if group.kind is UsageGroupKind.APIKEY and group.group is not None:
        key = keys.get(group.group)
        if key is None:
            return group.group
        return f"{key.masked} (expired)" if key.expired else key.masked
    if group.kind is UsageGroupKind.LABELVALUE and group.group is not None:
        return group.group
    return UNNAMED.get(group.kind, group.kind.value)


def _total(buckets: Sequence[UsageBucket], first: UsageResponse) -> str:
    """The line under the table: what the whole range counted, and the range as widened."""
    sums = [sum(figures) for figures in zip(*(_figures(b) for b in buckets), strict=True)]
    requests, records, runs = sums[:3] if sums else (0, 0, 0)
    return (
        f"Total: {_count(requests, 'request')}, {_count(records, 'record')}, "
        f"{_count(runs, 'run')} from {cell(first.from_)} to {cell(first.to)} "
        f"({_count(len(buckets), first.granularity.value)})"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _merged(read: Iterable[UsageResponse]) -> dict[str, Any]:
    """The pages as one answer in the contract's field names: the first page's, with every
    page's buckets and keys, and no next page."""
    answers = [page.to_dict() for page in read]
    merged = answers[0]
    merged["buckets"] = [bucket for answer in answers for bucket in answer["buckets"]]
    keys = {key["id"]: key for answer in answers for key in answer["apiKeys"]}
    merged["apiKeys"] = list(keys.values())
    merged["nextCursor"] = None
    return merged
