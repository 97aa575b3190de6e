"""A page of ``GET /web/usage`` (README "Usage API") from rollup rows, as JSON
(:class:`api.usage.schemas.UsageResponse`) or CSV: every bucket of the page (zeros included),
each with its groups. Pure: the rows come from ``api/usage/repository.py``.

A group's figures and a bucket's add up: a bucket's API keys and ``keyNotRecorded`` (what no
recorded key sent: the bucket less its keys) make the bucket; so do a label's values,
``otherValues`` and ``withoutLabel`` (the bucket less the label's values). The page is built
as plain data and written with orjson: an hour's page of a busy account holds thousands of
groups, which pydantic models would take tens of milliseconds to build and check.
"""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlencode

import orjson

from api.models import Platform
from api.models.usage_label import OTHER_LABEL_VALUE
from api.principal.api_keys import masked
from api.usage.ranges import Granularity
from api.usage.repository import Figures, KeyShown

PLATFORMS = tuple(Platform)
_FIELDS = ("requests", "records", "runs")
# Per bucket or group: requests, records and runs of each platform in PLATFORMS order.
_WIDTH = len(PLATFORMS) * len(_FIELDS)
_AT = {p: i * len(_FIELDS) for i, p in enumerate(PLATFORMS)}

CSV_COLUMNS = ("start", "end", "platform", *_FIELDS)
CSV_GROUPED_COLUMNS = ("start", "end", "kind", "group", "platform", *_FIELDS)


def _add(counts: list[int], row: Figures) -> None:
    at = _AT[row.platform]
    counts[at] += row.credits
    counts[at + 1] += row.records
    counts[at + 2] += row.runs


def _start(bucket: datetime | date) -> datetime:
    if isinstance(bucket, datetime):
        return bucket.astimezone(UTC)
    return datetime(bucket.year, bucket.month, bucket.day, tzinfo=UTC)


@dataclass(slots=True)
class Group:
    """One group of a bucket: its kind, its ``group`` (key id or label value, or None) and its
    figures (``_WIDTH`` counts)."""

    kind: str
    group: str | None
    counts: list[int]
    rank: tuple[Any, ...] = ()


@dataclass(slots=True)
class Bucket:
    """One bucket ``[start, end)``, its figures and its groups in order."""

    start: datetime
    end: datetime
    counts: list[int] = field(default_factory=lambda: [0] * _WIDTH)
    groups: list[Group] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class UsagePage:
    """A page of ``GET /web/usage``: the query as resolved (granularity, the widened range,
    the grouping), the labels of the range, the keys the groups name, the buckets, and the
    next page's cursor."""

    granularity: Granularity
    start: datetime
    end: datetime
    group_by: str | None
    labels: list[str]
    keys: list[KeyShown]
    buckets: list[Bucket]
    next_cursor: str | None


def buckets_of(
    edges: Sequence[tuple[datetime, datetime]],
    totals: Iterable[Figures],
    grouped: Iterable[Figures] | None = None,
    *,
    by_key: dict[uuid.UUID, KeyShown] | None = None,
) -> list[Bucket]:
    """The buckets ``edges`` (``(start, end)``, in order) with the figures of ``totals`` and,
    when ``grouped`` is given, their groups: per API key (``by_key`` names the account's keys;
    a row of any other key counts as not recorded) or per label value. Rows of a bucket not in
    ``edges`` are ignored."""
    buckets = {start: Bucket(start, end) for start, end in edges}
    for row in totals:
        if (bucket := buckets.get(_start(row.bucket))) is not None:
            _add(bucket.counts, row)
    if grouped is None:
        return list(buckets.values())
    named: dict[tuple[datetime, object], list[int]] = {}
    for row in grouped:
        start = _start(row.bucket)
        if start in buckets and (by_key is None or row.group in by_key):
            _add(named.setdefault((start, row.group), [0] * _WIDTH), row)
    for (start, group), counts in named.items():
        buckets[start].groups.append(_named(group, counts, by_key))
    for bucket in buckets.values():
        _rank(bucket, by_key is not None)
    return list(buckets.values())


def _named(group: object, counts: list[int], by_key: dict[uuid.UUID, KeyShown] | None) -> Group:
    requests = sum(counts[_AT[p]] for p in PLATFORMS)
    if by_key is not None:
        assert isinstance(group, uuid.UUID)
        newest_first = -by_key[group].created_at.timestamp()
        return Group("apiKey", str(group), counts, (-requests, newest_first, str(group)))
    if group == OTHER_LABEL_VALUE:
        return Group("otherValues", None, counts, (1,))
    return Group("labelValue", str(group), counts, (-requests, str(group)))


def _rank(bucket: Bucket, keys: bool) -> None:
    """Order the bucket's groups (most requests first, ties: the newest key, or by value; the
    kinds without a ``group`` last) and add what none of them counts (``keyNotRecorded`` or
    ``withoutLabel``); groups without any figure are left out."""
    named = sorted((g for g in bucket.groups if g.kind in ("apiKey", "labelValue")), key=_rank_of)
    rest = [g for g in bucket.groups if g.kind == "otherValues"]
    left = list(bucket.counts)
    for group in bucket.groups:
        for i, count in enumerate(group.counts):
            left[i] -= count
    rest.append(Group("keyNotRecorded" if keys else "withoutLabel", None, left))
    bucket.groups = [g for g in (*named, *rest) if any(g.counts)]


def _rank_of(group: Group) -> tuple[Any, ...]:
    return group.rank


def _figures(counts: list[int], at: int) -> dict[str, int]:
    return {"requests": counts[at], "records": counts[at + 1], "runs": counts[at + 2]}


def _totals(counts: list[int]) -> dict[str, int]:
    return {name: sum(counts[_AT[p] + i] for p in PLATFORMS) for i, name in enumerate(_FIELDS)}


def _split(counts: list[int]) -> dict[str, dict[str, int]]:
    return {
        "web": _figures(counts, _AT[Platform.WEB]),
        "nativeMobile": _figures(counts, _AT[Platform.NATIVE_MOBILE]),
        "api": _figures(counts, _AT[Platform.API]),
    }


def as_json(page: UsagePage) -> bytes:
    """The page as the JSON of ``UsageResponse`` (times in UTC with ``Z``, as the API's
    models write them)."""
    body = {
        "granularity": page.granularity.value,
        "from": page.start,
        "to": page.end,
        "groupBy": page.group_by,
        "labels": page.labels,
        "apiKeys": [
            {"id": str(k.id), "masked": masked(k.last4), "expired": k.expired} for k in page.keys
        ],
        "buckets": [
            {
                "start": b.start,
                "end": b.end,
                **_totals(b.counts),
                **_split(b.counts),
                "groups": [
                    {"kind": g.kind, "group": g.group, **_totals(g.counts), **_split(g.counts)}
                    for g in b.groups
                ],
            }
            for b in page.buckets
        ],
        "nextCursor": page.next_cursor,
    }
    return orjson.dumps(body, option=orjson.OPT_UTC_Z)


# OWASP "CSV Injection": a cell starting with one of these is a formula to a spreadsheet. Only a
# label's value can start so (times, kinds, platforms, ids and counts never do).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def _time(at: datetime) -> str:
    return orjson.dumps(at, option=orjson.OPT_UTC_Z).decode()[1:-1]


def as_csv(page: UsagePage) -> Iterator[str]:
    """The page as CSV (RFC 4180, CRLF): without grouping ``start,end,platform,requests,
    records,runs``, one line per bucket and platform, zeros included; grouped,
    ``start,end,kind,group,platform,requests,records,runs``, one line per group of a bucket and
    platform (a label's value that reads as a spreadsheet formula starts with ``'``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    grouped = page.group_by is not None
    writer.writerow(CSV_GROUPED_COLUMNS if grouped else CSV_COLUMNS)
    for bucket in page.buckets:
        start, end = _time(bucket.start), _time(bucket.end)
        if not grouped:
            for p in PLATFORMS:
                writer.writerow([start, end, p.value, *bucket.counts[_AT[p] : _AT[p] + 3]])
        for group in bucket.groups:
            name = _cell(group.group or "")
            for p in PLATFORMS:
                counts = group.counts[_AT[p] : _AT[p] + 3]
                writer.writerow([start, end, group.kind, name, p.value, *counts])
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    if not page.buckets:
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
