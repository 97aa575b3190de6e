"""A page of ``GET /web/usage`` (README "Usage API") as the route answers it: the JSON of
:class:`api.usage.schemas.UsageResponse` (its buckets, labels and keys as PostgreSQL built them,
api/usage/series_sql.py), or the same page as CSV; the ``Accept`` header that chooses, and the
``Link`` to the next page.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import orjson

from api.models import Platform
from api.usage.ranges import Granularity
from api.usage.repository import UsagePageRow

_FIELDS = ("requests", "records", "runs")
CSV_COLUMNS = ("start", "end", "platform", *_FIELDS)
CSV_GROUPED_COLUMNS = ("start", "end", "kind", "group", "platform", *_FIELDS)


@dataclass(frozen=True, slots=True)
class UsagePage:
    """A page of ``GET /web/usage``: the query as resolved (the granularity, the range widened
    to whole buckets, the grouping), what the page's statement built, and the next page's
    cursor (None on the last)."""

    granularity: Granularity
    start: datetime
    end: datetime
    group_by: str | None
    row: UsagePageRow
    next_cursor: str | None


def as_json(page: UsagePage) -> bytes:
    """The page as the JSON of ``UsageResponse``: its members in the schema's order, times in
    UTC with ``Z`` (as the API's models, and PostgreSQL's part, write them)."""
    head = orjson.dumps(
        {
            "granularity": page.granularity.value,
            "from": page.start,
            "to": page.end,
            "groupBy": page.group_by,
        },
        option=orjson.OPT_UTC_Z,
    )
    return b"".join(
        (
            head[:-1],
            b',"labels":',
            page.row.labels,
            b',"apiKeys":',
            page.row.api_keys,
            b',"buckets":',
            page.row.buckets,
            b',"nextCursor":',
            orjson.dumps(page.next_cursor),
            b"}",
        )
    )


# OWASP "CSV Injection": a cell starting with one of these is a formula to a spreadsheet. Only a
# label's value can start so (times, kinds, platforms, ids and counts never do).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def as_csv(page: UsagePage) -> Iterator[str]:
    """The page as CSV (RFC 4180, CRLF): without grouping ``start,end,platform,requests,
    records,runs``, one line per bucket and platform, zeros included; grouped,
    ``start,end,kind,group,platform,requests,records,runs``, one line per group of a bucket and
    platform (a label's value that reads as a spreadsheet formula starts with ``'``). The same
    figures as the JSON, read from it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    grouped = page.group_by is not None
    writer.writerow(CSV_GROUPED_COLUMNS if grouped else CSV_COLUMNS)
    buckets: list[dict[str, Any]] = orjson.loads(page.row.buckets)
    for bucket in buckets:
        start, end = bucket["start"], bucket["end"]
        if not grouped:
            for p in Platform:
                writer.writerow([start, end, p.value, *(bucket[p.value][f] for f in _FIELDS)])
        for group in bucket["groups"]:
            name = _cell(group["group"] or "")
            for p in Platform:
                figures = (group[p.value][f] for f in _FIELDS)
                writer.writerow([start, end, group["kind"], name, p.value, *figures])
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    if not buckets:
        yield out.getvalue()


def wants_csv(accept: str | None) -> bool:
    """Whether an ``Accept`` header prefers ``text/csv`` to JSON: the higher quality wins, the
    one listed first on a tie; JSON when it names neither."""
    best: tuple[float, int, bool] | None = None
    for position, item in enumerate((accept or "").split(",")):
        media, _, params = item.strip().partition(";")
        media = media.strip().lower()
        if media not in ("text/csv", "application/json"):
            continue
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0 and (best is None or quality > best[0]):
            best = (quality, position, media == "text/csv")
    return best is not None and best[2]


def next_link(path: str, params: Mapping[str, str], cursor: str | None) -> dict[str, str]:
    """The ``Link`` header naming the next page (RFC 8288: the same query with ``cursor``), or
    none on the last page."""
    if cursor is None:
        return {}
    query = urlencode([*((k, v) for k, v in params.items() if k != "cursor"), ("cursor", cursor)])
    return {"Link": f'<{path}?{query}>; rel="next"'}


def csv_disposition(page: UsagePage) -> str:
    """The download's name: ``usage-<granularity>-<first bucket's UTC date>.csv``."""
    return (
        f'attachment; filename="usage-{page.granularity.value}-{page.start.date().isoformat()}.csv"'
    )
