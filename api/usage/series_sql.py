"""``GET /web/usage``'s page in SQL (README "Usage API"): PostgreSQL builds the ``buckets`` of
``UsageResponse`` (api/usage/schemas.py) as JSON text, with the labels of the range, the keys the
groups name and the retention's labels (what a query may group by), in one statement per
page; ``api/usage/repository.py`` sends it. A page of hours by label holds several groups an
hour: built by PostgreSQL, a page of 100 took about half the time it took as Python objects
(bench/usage_query.py). ``tests/api/usage/test_usage_api.py`` holds every answer to the
schema.

One statement per grain (``hour``, ``day``, ``cycle``) and grouping (none, ``apiKey``,
``label``), each read from the rollups of its grain: the bucket's totals from ``usage_hourly``,
``usage_daily`` or ``usage``, a group's from the per-key and per-label twins (per cycle: their
daily rows by cycle; ``api_key_usage`` and ``usage_label`` are not split by platform). A
group's figures per platform are its rows' sums; ``keyNotRecorded`` and ``withoutLabel`` are
the bucket less its groups, platform by platform.

Parameters (named here, numbered by :func:`page_sql` in the order they first appear):
``account``; ``starts`` and ``ends``, the page's bucket starts and ends (``timestamptz[]``, in
order); ``page_start`` and ``page_end``; ``label`` (grouped by a label); ``window_start`` and
``window_end`` (the labels of the range); ``retention_start`` (the labels a query may group
by).
"""

# ruff: noqa: S608 - the statements are constant SQL text; every value is a $n parameter

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from api.kernel.schemas import sql_literal
from api.models import Platform
from api.models.usage_label import OTHER_LABEL_VALUE
from api.principal.api_keys import masked

Grain = Literal["hour", "day", "cycle"]
Grouping = Literal["none", "apiKey", "label"]

# The figures of a bucket or group: its requests (the rows' credits), records and runs on each
# platform, as columns <alias>_<field>.
_ALIASES = {Platform.WEB: "web", Platform.NATIVE_MOBILE: "mobile", Platform.API: "api"}
_FIELDS = {"requests": "credits", "records": "records", "runs": "runs"}
_COLUMNS = [f"{alias}_{field}" for alias in _ALIASES.values() for field in _FIELDS]

# A day's rows lie in the billing cycles that started in the 32 days before it (a cycle is at
# most 31 days) up to its end: the bound lets the daily rollups' key (account, cycle, ...)
# narrow the scan.
_DAY_ROWS = """cycle_start > CAST(:page_start AS timestamptz) - interval '32 days'
    AND cycle_start < CAST(:page_end AS timestamptz)
    AND day >= CAST(CAST(:page_start AS timestamptz) AT TIME ZONE 'UTC' AS date)
    AND day < CAST(CAST(:page_end AS timestamptz) AT TIME ZONE 'UTC' AS date)"""
_DAY_START = "CAST(day AS timestamp) AT TIME ZONE 'UTC'"
_CYCLE_ROWS = """cycle_start >= CAST(:page_start AS timestamptz)
    AND cycle_start < CAST(:page_end AS timestamptz)"""
_HOUR_ROWS = """hour >= CAST(:page_start AS timestamptz)
    AND hour < CAST(:page_end AS timestamptz)"""

# Rows (start, platform, runs, credits, records) of the bucket totals.
_TOTALS: dict[Grain, str] = {
    "hour": f"""SELECT hour AS start, platform, runs, credits, records FROM usage_hourly
        WHERE account_id = CAST(:account AS uuid) AND {_HOUR_ROWS}""",
    "day": f"""SELECT {_DAY_START} AS start, platform, runs, credits, records FROM usage_daily
        WHERE account_id = CAST(:account AS uuid) AND {_DAY_ROWS}""",
    "cycle": f"""SELECT cycle_start AS start, platform, runs, credits, records FROM usage
        WHERE account_id = CAST(:account AS uuid) AND {_CYCLE_ROWS}""",
}
# Rows (start, platform, grp, made, runs, credits, records) of the groups: the key's id and
# when it was made (the newest first on a tie), or the label's value.
_KEYS: dict[Grain, str] = {
    "hour": f"""SELECT g.hour AS start, g.platform, CAST(k.id AS text) AS grp,
            k.created_at AS made, g.runs, g.credits, g.records
        FROM api_key_usage_hourly AS g JOIN api_key AS k ON k.id = g.key_id
        WHERE k.account_id = CAST(:account AS uuid) AND g.{_HOUR_ROWS}""",
    "day": f"""SELECT {_DAY_START} AS start, g.platform, CAST(k.id AS text) AS grp,
            k.created_at AS made, g.runs, g.credits, g.records
        FROM api_key_usage_daily AS g JOIN api_key AS k ON k.id = g.key_id
        WHERE k.account_id = CAST(:account AS uuid) AND {_DAY_ROWS}""",
    "cycle": f"""SELECT g.cycle_start AS start, g.platform, CAST(k.id AS text) AS grp,
            k.created_at AS made, g.runs, g.credits, g.records
        FROM api_key_usage_daily AS g JOIN api_key AS k ON k.id = g.key_id
        WHERE k.account_id = CAST(:account AS uuid) AND g.{_CYCLE_ROWS}""",
}
_VALUES: dict[Grain, str] = {
    "hour": f"""SELECT hour AS start, platform, label_value AS grp,
            CAST(NULL AS timestamptz) AS made, runs, credits, records
        FROM usage_label_hourly
        WHERE account_id = CAST(:account AS uuid) AND label_key = CAST(:label AS text)
          AND {_HOUR_ROWS}""",
    "day": f"""SELECT {_DAY_START} AS start, platform, label_value AS grp,
            CAST(NULL AS timestamptz) AS made, runs, credits, records
        FROM usage_label_daily
        WHERE account_id = CAST(:account AS uuid) AND label_key = CAST(:label AS text)
          AND {_DAY_ROWS}""",
    "cycle": f"""SELECT cycle_start AS start, platform, label_value AS grp,
            CAST(NULL AS timestamptz) AS made, runs, credits, records
        FROM usage_label_daily
        WHERE account_id = CAST(:account AS uuid) AND label_key = CAST(:label AS text)
          AND {_CYCLE_ROWS}""",
}

# The names of the labels the window's records carried, sorted (byte order): for cycles, those
# the cycles counted; for hours and days, those of the records timed in it (the cycles that
# may hold them name the candidates, each looked up in usage_label_hourly: one index probe).
_LABELS: dict[Grain, str] = {
    "cycle": """SELECT DISTINCT label_key FROM usage_label
        WHERE account_id = CAST(:account AS uuid)
          AND cycle_start >= CAST(:window_start AS timestamptz)
          AND cycle_start < CAST(:window_end AS timestamptz)""",
    "hour": """SELECT c.label_key FROM (
            SELECT DISTINCT label_key FROM usage_label
            WHERE account_id = CAST(:account AS uuid)
              AND cycle_start > CAST(:window_start AS timestamptz) - interval '32 days'
              AND cycle_start < CAST(:window_end AS timestamptz)
        ) AS c
        WHERE EXISTS (
            SELECT FROM usage_label_hourly AS h
            WHERE h.account_id = CAST(:account AS uuid) AND h.label_key = c.label_key
              AND h.hour >= CAST(:window_start AS timestamptz)
              AND h.hour < CAST(:window_end AS timestamptz))""",
}
_LABELS["day"] = _LABELS["hour"]
_KNOWN_LABELS = """SELECT DISTINCT label_key FROM usage_label
    WHERE account_id = CAST(:account AS uuid)
      AND cycle_start >= CAST(:retention_start AS timestamptz)"""


def json_time_sql(column: str) -> str:
    """SQL writing the timestamptz ``column`` as an ``ApiModel`` writes a UTC datetime in JSON
    (``2026-11-21T10:15:30Z``, with ``.ffffff`` only when the microseconds are not zero), for
    the pages PostgreSQL builds here. ``column`` is a constant SQL expression, never a value."""
    return f"""to_char({column} AT TIME ZONE 'UTC', CASE
        WHEN extract(microseconds FROM {column})::bigint % 1000000 = 0
        THEN 'YYYY-MM-DD"T"HH24:MI:SS"Z"' ELSE 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"' END)"""


def _figures(rows: str) -> str:
    """The 9 figure columns, summed per platform from ``rows`` (start, platform, runs, credits,
    records)."""
    return ",\n        ".join(
        f"CAST(coalesce(sum({rows}.{column}) FILTER (WHERE {rows}.platform = "
        f"{sql_literal(platform.value)}), 0) AS bigint) AS {alias}_{field}"
        for platform, alias in _ALIASES.items()
        for field, column in _FIELDS.items()
    )


def _figures_format(rows: str) -> tuple[str, str]:
    """A ``format()`` template of the JSON members of a bucket's or group's figures, and the
    SQL of its arguments from ``rows``' 9 columns (bigint): its ``requests``, ``records`` and
    ``runs``, then ``web``, ``nativeMobile`` and ``api``, each ``{"requests", "records",
    "runs"}``. One ``format()`` a group rather than ``json_build_object``s: a page holds
    thousands of groups, and for 1,000 hours by label the statement took about 30 % less time
    and its text 18 % fewer bytes (the members are numbers: there is nothing to escape)."""
    template = ",".join(
        [f'"{field}":%s' for field in _FIELDS]
        + [
            f'"{platform.value}":{{' + ",".join(f'"{field}":%s' for field in _FIELDS) + "}"
            for platform in _ALIASES
        ]
    )
    arguments = [
        " + ".join(f"coalesce({rows}.{alias}_{field}, 0)" for alias in _ALIASES.values())
        for field in _FIELDS
    ] + [f"coalesce({rows}.{alias}_{field}, 0)" for alias in _ALIASES.values() for field in _FIELDS]
    return template, ", ".join(arguments)


def _requests(rows: str) -> str:
    return " + ".join(f"{rows}.{alias}_requests" for alias in _ALIASES.values())


@dataclass(frozen=True, slots=True)
class Statement:
    """SQL with ``$n`` parameters, and the names of the values ``$1``, ``$2``... take."""

    text: str
    names: tuple[str, ...]


# A :name of the statement's text (never a ::cast, nor a time format's :MI).
_PLACEHOLDER = re.compile(r"(?<![:\w]):([a-z_]+)\b")


@functools.cache
def page_sql(grain: Grain, grouping: Grouping) -> Statement:
    """:func:`page_text` with its parameters numbered (asyncpg's ``$n``), each once."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return Statement(_PLACEHOLDER.sub(number, page_text(grain, grouping)), tuple(names))


def page_text(grain: Grain, grouping: Grouping) -> str:
    """The statement of one page (see the module's docstring for its parameters): one row of
    ``buckets`` (UTF-8 JSON: every bucket of ``starts``/``ends`` in order, with its groups),
    ``labels`` (a JSON array), ``api_keys`` (a JSON array of ``UsageApiKey``, newest first) and,
    for a label grouping, the names of the retention's labels (text[], sorted; else NULL).

    Aggregations only, no join of the parts: the rows of the page's buckets (part 0), of their
    totals (1) and of their groups (2) are summed per bucket, part and group; what no group
    counts (part 3) is a bucket's totals less its groups; each bucket then aggregates its
    parts into its JSON. However many rows, and whatever the planner's estimates, that is a few
    sorts or hashes of the page's rows.
    """
    named_kind, rest_kind = {
        "apiKey": ("apiKey", "keyNotRecorded"),
        "label": ("labelValue", "withoutLabel"),
        "none": ("", ""),
    }[grouping]
    other = sql_literal(OTHER_LABEL_VALUE)
    groups_source = ""
    if grouping != "none":
        source = _KEYS[grain] if grouping == "apiKey" else _VALUES[grain]
        groups_source = f"""
    UNION ALL
    SELECT g.start, NULL, 2, g.grp, g.made, g.platform, g.runs, g.credits, g.records
    FROM ({source}) AS g"""
    columns = ", ".join(_COLUMNS)
    less = ",\n            ".join(
        f"CAST(coalesce(sum(p.{c}) FILTER (WHERE p.part = 1), 0)"
        f" - coalesce(sum(p.{c}) FILTER (WHERE p.part = 2), 0) AS bigint) AS {c}"
        for c in _COLUMNS
    )
    # A bucket's totals: the one row of part 1 (none: zeros).
    totals = ",\n        ".join(
        f"coalesce(max(x.{c}) FILTER (WHERE x.part = 1), 0) AS {c}" for c in _COLUMNS
    )
    rests = (
        ""
        if grouping == "none"
        else f"""
        UNION ALL
        SELECT p.start, NULL, 3, NULL, NULL,
            {less}
        FROM parts AS p
        GROUP BY p.start"""
    )
    any_figure = " OR ".join(f"x.{c} <> 0" for c in _COLUMNS)
    # place: the named groups by requests (then the newest key, or by value), the values past
    # a label's cap, then what none of them counts.
    group_members, group_figures = _figures_format("x")
    group_template = sql_literal('{"kind":"%s","group":%s,' + group_members + "}")
    groups = f"""'[' || coalesce(string_agg(
            format({group_template},
                CASE WHEN x.part = 3 THEN {sql_literal(rest_kind)}
                     WHEN x.grp = {other} THEN 'otherValues'
                     ELSE {sql_literal(named_kind)} END,
                CASE WHEN x.part = 2 AND x.grp <> {other} THEN to_json(x.grp)::text
                     ELSE 'null' END,
                {group_figures}),
            ',' ORDER BY x.part, x.grp = {other}, {_requests("x")} DESC, x.made DESC NULLS LAST,
                         x.grp COLLATE "C"
        ) FILTER (WHERE x.part = 2 OR (x.part = 3 AND ({any_figure}))), '') || ']'"""
    if grouping == "none":
        groups = "'[]'"
    bucket_members, bucket_figures = _figures_format("b")
    bucket_template = sql_literal('{"start":"%s","end":"%s",' + bucket_members + ',"groups":%s}')
    api_keys = "CAST('[]' AS json)"
    if grouping == "apiKey":
        api_keys = f"""(SELECT coalesce(json_agg(json_build_object(
            'id', k.id,
            'masked', {sql_literal(masked(""))} || k.last4,
            'expired', coalesce(k.expires_at <= now(), false)
        ) ORDER BY k.created_at DESC), CAST('[]' AS json))
        FROM api_key AS k
        WHERE k.account_id = CAST(:account AS uuid)
          AND CAST(k.id AS text) IN (SELECT p.grp FROM parts AS p WHERE p.part = 2))"""
    known = "CAST(NULL AS text[])"
    if grouping == "label":
        known = f"""(SELECT coalesce(array_agg(k.label_key ORDER BY k.label_key COLLATE "C"),
                                 CAST('{{}}' AS text[]))
         FROM ({_KNOWN_LABELS}) AS k)"""
    return f"""WITH parts AS (
    SELECT r.start, max(r.stop) AS stop, r.part, r.grp, max(r.made) AS made, {_figures("r")}
    FROM (
        SELECT e.start, e.stop, 0 AS part, CAST(NULL AS text) AS grp,
               CAST(NULL AS timestamptz) AS made, CAST(NULL AS platform) AS platform,
               0 AS runs, 0 AS credits, 0 AS records
        FROM unnest(CAST(:starts AS timestamptz[]), CAST(:ends AS timestamptz[])) AS e(start, stop)
        UNION ALL
        SELECT t.start, NULL, 1, NULL, NULL, t.platform, t.runs, t.credits, t.records
        FROM ({_TOTALS[grain]}) AS t{groups_source}
    ) AS r
    GROUP BY r.start, r.part, r.grp
), buckets AS (
    SELECT x.start, max(x.stop) AS stop, {totals}, {groups} AS groups
    FROM (
        SELECT p.start, p.stop, p.part, p.grp, p.made, {columns} FROM parts AS p{rests}
    ) AS x
    GROUP BY x.start
)
SELECT convert_to('[' || coalesce(string_agg(
        format({bucket_template}, {json_time_sql("b.start")}, {json_time_sql("b.stop")},
               {bucket_figures}, b.groups),
        ',' ORDER BY b.start), '') || ']', 'UTF8'),
    (SELECT convert_to(coalesce(json_agg(n.label_key ORDER BY n.label_key COLLATE "C"),
                                CAST('[]' AS json))::text, 'UTF8')
     FROM ({_LABELS[grain]}) AS n),
    convert_to({api_keys}::text, 'UTF8'),
    {known}
FROM buckets AS b
WHERE b.stop IS NOT NULL"""
