"""Queries on the usage rollups (per cycle, day and hour, of the account, its keys and its
labels) and the intake's ``usage_record`` rows; every query takes the account id it is scoped
to."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import NamedTuple

import orjson
from sqlalchemy import BigInteger, case, func, literal_column, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.kernel.db import driver_connection
from api.models import (
    Account,
    ApiKey,
    ApiKeyUsage,
    ApiKeyUsageDaily,
    Platform,
    Usage,
    UsageAlert,
    UsageDaily,
    UsageLabel,
    UsageLabelDaily,
    UsageTotal,
    User,
)
from api.models.account import allowance_sql
from api.models.usage_label import LABEL_VALUES_PER_CYCLE, OTHER_LABEL_VALUE
from api.usage.series_sql import Statement


class CycleUsage(NamedTuple):
    """One rollup row: a platform's runs and credits in the cycle starting at ``cycle_start``."""

    cycle_start: datetime
    platform: Platform
    runs: int
    credits: int


async def usage_since(db: AsyncSession, account_id: uuid.UUID, since: datetime) -> list[CycleUsage]:
    """Rollup rows of one account with ``cycle_start >= since`` (at most 3 per cycle).

    Plain column rows, not ORM entities: this is on the read path of every Account
    Information load (bench/api.py).
    """
    result = await db.execute(
        select(Usage.cycle_start, Usage.platform, Usage.runs, Usage.credits)
        .where(Usage.account_id == account_id, Usage.cycle_start >= since)
        .order_by(Usage.cycle_start)
    )
    return [CycleUsage(*row) for row in result]


class NewRecord(NamedTuple):
    """A record to store, already placed in its billing cycle; ``labels`` None or its labels
    (name: value, README "Metering intake")."""

    idempotency_key: str
    platform: Platform
    runs: int
    credits: int
    recorded_at: datetime
    cycle_start: datetime
    labels: Mapping[str, str] | None = None


# One statement, one round trip: insert the records, skipping keys already stored for the
# account; add exactly the inserted ones to the rollups: per cycle, per day and per UTC hour
# (account, sending key, each label value; runs, credits and records) in a fixed order each, so
# concurrent batches of one account lock rollup rows in the same order; count them.
# Data-modifying CTEs always run to completion, and the whole statement runs in the request's
# transaction. Unlabelled records (labels NULL) expand to no label rows. A label keeps at most
# LABEL_VALUES_PER_CYCLE values a cycle: the batch's new values take the places left in value
# order, the rest count under OTHER_LABEL_VALUE. The places are counted in the statement's
# snapshot, so batches counted at the same moment may each take the same last places (the cap
# is passed by at most what they bring together).
_INGEST = text(
    """
WITH inserted AS (
    INSERT INTO usage_record
        (account_id, idempotency_key, platform, runs, credits, recorded_at, cycle_start,
         api_key_id, labels)
    SELECT CAST(:account_id AS uuid), r.idempotency_key, CAST(r.platform AS platform),
           r.runs, r.credits, r.recorded_at, r.cycle_start, CAST(:key_id AS uuid),
           CAST(r.labels AS jsonb)
    FROM unnest(
        CAST(:keys AS varchar[]), CAST(:platforms AS text[]), CAST(:runs AS integer[]),
        CAST(:credits AS integer[]), CAST(:recorded_at AS timestamptz[]),
        CAST(:cycle_starts AS timestamptz[]), CAST(:labels AS text[])
    ) AS r(idempotency_key, platform, runs, credits, recorded_at, cycle_start, labels)
    ON CONFLICT (account_id, idempotency_key) DO NOTHING
    RETURNING cycle_start, platform, runs, credits,
              CAST(recorded_at AT TIME ZONE 'UTC' AS date) AS day,
              date_trunc('hour', recorded_at, 'UTC') AS hour, labels
), rolled_up AS (
    INSERT INTO usage (account_id, cycle_start, platform, runs, credits, records)
    SELECT CAST(:account_id AS uuid), cycle_start, platform, sum(runs), sum(credits), count(*)
    FROM inserted
    GROUP BY cycle_start, platform
    ORDER BY cycle_start, platform
    ON CONFLICT (account_id, cycle_start, platform) DO UPDATE
        SET runs = usage.runs + excluded.runs, credits = usage.credits + excluded.credits,
            records = usage.records + excluded.records
    RETURNING 1
), totals AS (
    INSERT INTO usage_total (account_id, cycle_start, runs, credits)
    SELECT CAST(:account_id AS uuid), cycle_start, sum(runs), sum(credits)
    FROM inserted
    GROUP BY cycle_start
    HAVING CAST(:allowance AS bigint) IS NULL OR sum(credits) <= CAST(:allowance AS bigint)
    ORDER BY cycle_start
    ON CONFLICT (account_id, cycle_start) DO UPDATE
        SET runs = usage_total.runs + excluded.runs,
            credits = usage_total.credits + excluded.credits
        WHERE CAST(:allowance AS bigint) IS NULL
           OR usage_total.credits + excluded.credits <= CAST(:allowance AS bigint)
    RETURNING cycle_start
), by_key AS (
    INSERT INTO api_key_usage (key_id, cycle_start, records, runs, credits)
    SELECT CAST(:key_id AS uuid), cycle_start, count(*), sum(runs), sum(credits)
    FROM inserted
    WHERE CAST(:key_id AS uuid) IS NOT NULL
    GROUP BY cycle_start
    HAVING CAST(:key_limit AS bigint) IS NULL OR sum(credits) <= CAST(:key_limit AS bigint)
    ORDER BY cycle_start
    ON CONFLICT (key_id, cycle_start) DO UPDATE
        SET records = api_key_usage.records + excluded.records,
            runs = api_key_usage.runs + excluded.runs,
            credits = api_key_usage.credits + excluded.credits
        WHERE CAST(:key_limit AS bigint) IS NULL
           OR api_key_usage.credits + excluded.credits <= CAST(:key_limit AS bigint)
    RETURNING cycle_start
), daily AS (
    INSERT INTO usage_daily (account_id, cycle_start, day, platform, runs, credits, records)
    SELECT CAST(:account_id AS uuid), cycle_start, day, platform, sum(runs), sum(credits),
           count(*)
    FROM inserted
    GROUP BY cycle_start, day, platform
    ORDER BY cycle_start, day, platform
    ON CONFLICT (account_id, cycle_start, day, platform) DO UPDATE
        SET runs = usage_daily.runs + excluded.runs,
            credits = usage_daily.credits + excluded.credits,
            records = usage_daily.records + excluded.records
    RETURNING 1
), hourly AS (
    INSERT INTO usage_hourly (account_id, hour, platform, runs, credits, records)
    SELECT CAST(:account_id AS uuid), hour, platform, sum(runs), sum(credits), count(*)
    FROM inserted
    GROUP BY hour, platform
    ORDER BY hour, platform
    ON CONFLICT (account_id, hour, platform) DO UPDATE
        SET runs = usage_hourly.runs + excluded.runs,
            credits = usage_hourly.credits + excluded.credits,
            records = usage_hourly.records + excluded.records
    RETURNING 1
), key_daily AS (
    INSERT INTO api_key_usage_daily (key_id, cycle_start, day, platform, runs, credits, records)
    SELECT CAST(:key_id AS uuid), cycle_start, day, platform, sum(runs), sum(credits), count(*)
    FROM inserted
    WHERE CAST(:key_id AS uuid) IS NOT NULL
    GROUP BY cycle_start, day, platform
    ORDER BY cycle_start, day, platform
    ON CONFLICT (key_id, cycle_start, day, platform) DO UPDATE
        SET runs = api_key_usage_daily.runs + excluded.runs,
            credits = api_key_usage_daily.credits + excluded.credits,
            records = api_key_usage_daily.records + excluded.records
    RETURNING 1
), key_hourly AS (
    INSERT INTO api_key_usage_hourly (key_id, hour, platform, runs, credits, records)
    SELECT CAST(:key_id AS uuid), hour, platform, sum(runs), sum(credits), count(*)
    FROM inserted
    WHERE CAST(:key_id AS uuid) IS NOT NULL
    GROUP BY hour, platform
    ORDER BY hour, platform
    ON CONFLICT (key_id, hour, platform) DO UPDATE
        SET runs = api_key_usage_hourly.runs + excluded.runs,
            credits = api_key_usage_hourly.credits + excluded.credits,
            records = api_key_usage_hourly.records + excluded.records
    RETURNING 1
), pairs AS (
    SELECT i.cycle_start, i.day, i.hour, i.platform, i.runs, i.credits, l.key AS label_key,
           l.value AS label_value
    FROM inserted AS i CROSS JOIN LATERAL jsonb_each_text(i.labels) AS l
), new_values AS (
    SELECT DISTINCT p.cycle_start, p.label_key, p.label_value
    FROM pairs AS p
    WHERE NOT EXISTS (
        SELECT FROM usage_label AS u
        WHERE u.account_id = CAST(:account_id AS uuid) AND u.cycle_start = p.cycle_start
          AND u.label_key = p.label_key AND u.label_value = p.label_value)
), held AS (
    SELECT n.cycle_start, n.label_key,
           (SELECT count(*) FROM usage_label AS u
            WHERE u.account_id = CAST(:account_id AS uuid) AND u.cycle_start = n.cycle_start
              AND u.label_key = n.label_key AND u.label_value <> :other_value) AS held
    FROM (SELECT DISTINCT cycle_start, label_key FROM new_values) AS n
), past_cap AS (
    SELECT n.cycle_start, n.label_key, n.label_value
    FROM (
        SELECT cycle_start, label_key, label_value,
               row_number() OVER (PARTITION BY cycle_start, label_key ORDER BY label_value) AS nth
        FROM new_values
    ) AS n JOIN held AS h USING (cycle_start, label_key)
    WHERE h.held + n.nth > CAST(:values_per_cycle AS bigint)
), labelled AS (
    SELECT p.cycle_start, p.day, p.hour, p.platform, p.runs, p.credits, p.label_key,
           CASE WHEN x.label_value IS NULL THEN p.label_value
                ELSE CAST(:other_value AS varchar) END AS label_value
    FROM pairs AS p LEFT JOIN past_cap AS x USING (cycle_start, label_key, label_value)
), by_label AS (
    INSERT INTO usage_label (account_id, cycle_start, label_key, label_value, runs, credits)
    SELECT CAST(:account_id AS uuid), cycle_start, label_key, label_value, sum(runs),
           sum(credits)
    FROM labelled
    GROUP BY cycle_start, label_key, label_value
    ORDER BY cycle_start, label_key, label_value
    ON CONFLICT (account_id, cycle_start, label_key, label_value) DO UPDATE
        SET runs = usage_label.runs + excluded.runs,
            credits = usage_label.credits + excluded.credits
    RETURNING 1
), label_daily AS (
    INSERT INTO usage_label_daily
        (account_id, cycle_start, label_key, label_value, day, platform, runs, credits, records)
    SELECT CAST(:account_id AS uuid), cycle_start, label_key, label_value, day, platform,
           sum(runs), sum(credits), count(*)
    FROM labelled
    GROUP BY cycle_start, label_key, label_value, day, platform
    ORDER BY cycle_start, label_key, label_value, day, platform
    ON CONFLICT (account_id, cycle_start, label_key, label_value, day, platform) DO UPDATE
        SET runs = usage_label_daily.runs + excluded.runs,
            credits = usage_label_daily.credits + excluded.credits,
            records = usage_label_daily.records + excluded.records
    RETURNING 1
), label_hourly AS (
    INSERT INTO usage_label_hourly
        (account_id, label_key, hour, label_value, platform, runs, credits, records)
    SELECT CAST(:account_id AS uuid), label_key, hour, label_value, platform, sum(runs),
           sum(credits), count(*)
    FROM labelled
    GROUP BY label_key, hour, label_value, platform
    ORDER BY label_key, hour, label_value, platform
    ON CONFLICT (account_id, label_key, hour, label_value, platform) DO UPDATE
        SET runs = usage_label_hourly.runs + excluded.runs,
            credits = usage_label_hourly.credits + excluded.credits,
            records = usage_label_hourly.records + excluded.records
    RETURNING 1
), cycles AS (
    SELECT DISTINCT cycle_start FROM inserted
)
SELECT (SELECT count(*) FROM inserted),
       (SELECT min(c.cycle_start) FROM cycles AS c
        WHERE NOT EXISTS (SELECT FROM totals AS t WHERE t.cycle_start = c.cycle_start)),
       (SELECT min(c.cycle_start) FROM cycles AS c
        WHERE CAST(:key_id AS uuid) IS NOT NULL
          AND NOT EXISTS (SELECT FROM by_key AS k WHERE k.cycle_start = c.cycle_start))
"""
)


class Counted(NamedTuple):
    """What the intake's statement did with a batch: how many records were new (inserted and
    counted), and the first billing cycle (if any) whose allowance, or whose key limit, the
    new records would have taken the count past; then the rollups of that cycle were left as
    they were, and the caller must undo the rest (a savepoint): nothing is half-counted."""

    accepted: int
    allowance_refused: datetime | None
    key_limit_refused: datetime | None

    @property
    def refused(self) -> bool:
        """Whether a limit refused the batch."""
        return self.allowance_refused is not None or self.key_limit_refused is not None


async def insert_records(
    db: AsyncSession,
    account_id: uuid.UUID,
    records: Sequence[NewRecord],
    key_id: uuid.UUID | None = None,
    *,
    allowance: int | None = None,
    key_limit: int | None = None,
) -> Counted:
    """Store ``records`` for the account and add the new ones to its rollups: ``usage``,
    ``usage_total``, ``usage_daily`` and ``usage_hourly`` (per cycle, per day, per UTC hour of
    the record's time), the sending API key's (``key_id``; None: no key, the dev seed)
    ``api_key_usage``, ``api_key_usage_daily`` and ``api_key_usage_hourly``, and for each label
    a record carries, ``usage_label``, ``usage_label_daily`` and ``usage_label_hourly``: under
    its value while the label has fewer than ``LABEL_VALUES_PER_CYCLE`` values in the cycle or
    already has this one, else under ``OTHER_LABEL_VALUE``. Each rollup row adds up runs,
    credits and records (``api_key_usage``: records, runs and credits; ``usage_total`` and
    ``usage_label``: runs and credits).

    Records whose idempotency key the account already has are skipped (``ON CONFLICT DO
    NOTHING``; a concurrent insert of the same key waits for the other transaction). Pass
    records sorted by key and without duplicate keys, so concurrent batches lock in the same
    order.

    Spend limits (requests per billing cycle; None: none): the cycle's total may not pass
    ``allowance``, the key's may not pass ``key_limit``. The check is the condition of the
    upsert that counts (``ON CONFLICT DO UPDATE ... WHERE``): the row is locked, and a
    concurrent batch's count is seen once it commits, so concurrent batches on any replica
    never pass a limit together. A refused cycle's total is left as it was and named in the
    result; the rest of the statement's writes are the caller's to undo.
    """
    if not records:
        return Counted(0, None, None)
    row = (
        await db.execute(
            _INGEST,
            {
                "account_id": account_id,
                "key_id": key_id,
                "allowance": allowance,
                "key_limit": key_limit,
                "keys": [r.idempotency_key for r in records],
                "platforms": [r.platform.value for r in records],
                "runs": [r.runs for r in records],
                "credits": [r.credits for r in records],
                "recorded_at": [r.recorded_at for r in records],
                "cycle_starts": [r.cycle_start for r in records],
                "labels": [orjson.dumps(r.labels).decode() if r.labels else None for r in records],
                "values_per_cycle": LABEL_VALUES_PER_CYCLE,
                "other_value": OTHER_LABEL_VALUE,
            },
        )
    ).one()
    return Counted(int(row[0]), row[1], row[2])


class KeyTotal(NamedTuple):
    """What one API key sent in a cycle: its id, last four characters, whether it has expired,
    and its requests (credits)."""

    key_id: uuid.UUID
    last4: str
    expired: bool
    credits: int


async def cycle_credits(db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime) -> int:
    """The account's requests (credits of every platform) in the cycle (at most 3 rows)."""
    total = await db.scalar(
        select(func.coalesce(func.sum(Usage.credits), 0)).where(
            Usage.account_id == account_id, Usage.cycle_start == cycle_start
        )
    )
    return int(total or 0)


async def credits_by_key(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> list[KeyTotal]:
    """The account's keys that sent requests in the cycle, most first (one row per key)."""
    result = await db.execute(
        select(
            ApiKey.id,
            ApiKey.last4,
            func.coalesce(ApiKey.expires_at <= func.now(), False),
            ApiKeyUsage.credits,
        )
        .join(ApiKeyUsage, ApiKeyUsage.key_id == ApiKey.id)
        .where(
            ApiKey.account_id == account_id,
            ApiKeyUsage.cycle_start == cycle_start,
            ApiKeyUsage.credits > 0,
        )
        .order_by(ApiKeyUsage.credits.desc(), ApiKey.created_at.desc())
    )
    return [KeyTotal(*row) for row in result]


async def label_names(db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime) -> list[str]:
    """The names of the labels the cycle's records carried, sorted."""
    names = await db.scalars(
        select(UsageLabel.label_key)
        .distinct()
        .where(UsageLabel.account_id == account_id, UsageLabel.cycle_start == cycle_start)
        .order_by(UsageLabel.label_key)
    )
    return list(names)


async def top_label_values(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime, label: str, count: int
) -> tuple[list[tuple[str, int]], int]:
    """The ``count`` values of ``label`` with the most requests in the cycle (most first, then
    by value), and the requests of all its values together, those past the cap
    (``OTHER_LABEL_VALUE``, never named) included: one pass over the label's rows."""
    result = await db.execute(
        select(
            UsageLabel.label_value,
            UsageLabel.credits,
            func.sum(UsageLabel.credits).over(),
        )
        .where(
            UsageLabel.account_id == account_id,
            UsageLabel.cycle_start == cycle_start,
            UsageLabel.label_key == label,
        )
        .order_by(
            UsageLabel.label_value == OTHER_LABEL_VALUE,
            UsageLabel.credits.desc(),
            UsageLabel.label_value,
        )
        .limit(count)
    )
    rows = result.all()
    named = [(value, int(credits)) for value, credits, _ in rows if value != OTHER_LABEL_VALUE]
    return named, int(rows[0][2]) if rows else 0


async def daily_credits_by_key(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> dict[tuple[date, Platform, uuid.UUID], int]:
    """The requests of each of the account's keys per UTC day and platform of the cycle (at
    most keys x 3 x 31 rows)."""
    result = await db.execute(
        select(
            ApiKeyUsageDaily.day,
            ApiKeyUsageDaily.platform,
            ApiKeyUsageDaily.key_id,
            ApiKeyUsageDaily.credits,
        )
        .join(ApiKey, ApiKey.id == ApiKeyUsageDaily.key_id)
        .where(ApiKey.account_id == account_id, ApiKeyUsageDaily.cycle_start == cycle_start)
    )
    return {(day, platform, key): int(credits) for day, platform, key, credits in result}


async def daily_credits_by_label(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime, label: str, values: list[str]
) -> dict[tuple[date, Platform, str | None], int]:
    """The requests labelled ``label`` per UTC day and platform of the cycle: per value of
    ``values``, the other values together under None (at most 3 x 31 x (values + 1) rows)."""
    value = case((UsageLabelDaily.label_value.in_(values), UsageLabelDaily.label_value))
    result = await db.execute(
        select(
            UsageLabelDaily.day, UsageLabelDaily.platform, value, func.sum(UsageLabelDaily.credits)
        )
        .where(
            UsageLabelDaily.account_id == account_id,
            UsageLabelDaily.cycle_start == cycle_start,
            UsageLabelDaily.label_key == label,
        )
        .group_by(UsageLabelDaily.day, UsageLabelDaily.platform, value)
    )
    return {(day, platform, name): int(credits) for day, platform, name, credits in result}


# A refused batch's notice: recorded once per cycle and limit value (a raised limit reached
# again tells again); the row returned only to the transaction that recorded it (a concurrent
# refusal waits on the row lock, then finds it recorded).
_KEY_LIMIT_REACHED = text(
    """
INSERT INTO api_key_usage (key_id, cycle_start, limit_reached, limit_reached_at)
VALUES (:key_id, :cycle_start, :limit, now())
ON CONFLICT (key_id, cycle_start) DO UPDATE
    SET limit_reached = excluded.limit_reached, limit_reached_at = excluded.limit_reached_at
    WHERE api_key_usage.limit_reached IS DISTINCT FROM excluded.limit_reached
RETURNING 1
"""
)
_ALLOWANCE_REACHED = text(
    """
INSERT INTO usage_total (account_id, cycle_start, allowance_reached, allowance_reached_at)
VALUES (:account_id, :cycle_start, :limit, now())
ON CONFLICT (account_id, cycle_start) DO UPDATE
    SET allowance_reached = excluded.allowance_reached,
        allowance_reached_at = excluded.allowance_reached_at
    WHERE usage_total.allowance_reached IS DISTINCT FROM excluded.allowance_reached
RETURNING 1
"""
)


async def note_key_limit_reached(
    db: AsyncSession, key_id: uuid.UUID, cycle_start: datetime, limit: int
) -> bool:
    """Record that the key reached ``limit`` in the cycle; True only the first time for that
    cycle and limit (whichever transaction, on whichever replica)."""
    params = {"key_id": key_id, "cycle_start": cycle_start, "limit": limit}
    return (await db.scalar(_KEY_LIMIT_REACHED, params)) is not None


async def note_allowance_reached(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime, limit: int
) -> bool:
    """Record that the account stopped at its allowance ``limit`` in the cycle; True only the
    first time for that cycle and allowance."""
    params = {"account_id": account_id, "cycle_start": cycle_start, "limit": limit}
    return (await db.scalar(_ALLOWANCE_REACHED, params)) is not None


class DayUsage(NamedTuple):
    """One daily rollup row: a platform's runs and credits on ``day`` (UTC) of a cycle."""

    day: date
    platform: Platform
    runs: int
    credits: int


async def daily_usage(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> list[DayUsage]:
    """The daily rollup rows of one account's billing cycle (at most 3 x 31), by day."""
    result = await db.execute(
        select(UsageDaily.day, UsageDaily.platform, UsageDaily.runs, UsageDaily.credits)
        .where(UsageDaily.account_id == account_id, UsageDaily.cycle_start == cycle_start)
        .order_by(UsageDaily.day)
    )
    return [DayUsage(*row) for row in result]


# The thresholds of the account's allowance that the current cycle's requests have reached
# and that were not recorded yet: recorded now, returned once (the primary key of usage_alert
# settles concurrent batches: the second waits for the first's commit, then conflicts).
_CROSSINGS = text(
    f"""
WITH plan AS (
    SELECT {allowance_sql("account")} AS allowance, usage_alert_thresholds AS thresholds
    FROM account WHERE id = CAST(:account_id AS uuid)
), used AS (
    SELECT coalesce(sum(credits), 0) AS credits FROM usage
    WHERE account_id = CAST(:account_id AS uuid) AND cycle_start = :cycle_start
)
INSERT INTO usage_alert (account_id, cycle_start, threshold, used, allowance)
SELECT CAST(:account_id AS uuid), :cycle_start, t.threshold, used.credits, plan.allowance
FROM plan, used, unnest(plan.thresholds) AS t(threshold)
WHERE plan.allowance > 0 AND used.credits * 100 >= t.threshold * plan.allowance
ORDER BY t.threshold
ON CONFLICT (account_id, cycle_start, threshold) DO NOTHING
RETURNING threshold, used, allowance
"""  # noqa: S608 - constant SQL text only
)


class Crossing(NamedTuple):
    """A usage alert to send: ``threshold`` percent reached, ``used`` of ``allowance``."""

    threshold: int
    used: int
    allowance: int


async def record_crossings(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> list[Crossing]:
    """Record the alert thresholds the cycle's usage has newly reached; returns them (each
    is returned by exactly one transaction, ever)."""
    result = await db.execute(_CROSSINGS, {"account_id": account_id, "cycle_start": cycle_start})
    return [Crossing(*row) for row in result]


async def alert_recipients(db: AsyncSession, account_id: uuid.UUID) -> tuple[str, list[str]]:
    """The account's name and the emails of its users who receive usage alerts."""
    name = await db.scalar(select(Account.name).where(Account.id == account_id))
    emails = await db.scalars(
        select(User.email)
        .where(User.account_id == account_id, User.usage_alerts.is_(True))
        .order_by(User.email)
    )
    return str(name), list(emails)


class AlertUser(NamedTuple):
    """A user of the account and whether they receive usage alerts."""

    id: uuid.UUID
    email: str
    first_name: str
    last_name: str
    usage_alerts: bool


async def alert_settings(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> tuple[list[int], list[AlertUser], list[tuple[int, datetime]]]:
    """The account's alert thresholds, its users (by email) with their choice, and the
    thresholds (with when) the cycle starting at ``cycle_start`` reached."""
    thresholds = await db.scalar(
        select(Account.usage_alert_thresholds).where(Account.id == account_id)
    )
    users = await db.execute(
        select(User.id, User.email, User.first_name, User.last_name, User.usage_alerts)
        .where(User.account_id == account_id)
        .order_by(User.email)
    )
    reached = await db.execute(
        select(UsageAlert.threshold, UsageAlert.reached_at)
        .where(UsageAlert.account_id == account_id, UsageAlert.cycle_start == cycle_start)
        .order_by(UsageAlert.threshold)
    )
    return (
        sorted(thresholds or []),
        [AlertUser(*row) for row in users],
        [(int(t), at) for t, at in reached],
    )


async def set_alert_settings(
    db: AsyncSession, account_id: uuid.UUID, thresholds: list[int], recipient_ids: set[uuid.UUID]
) -> bool:
    """Store the thresholds and who receives alerts (everyone else of the account does not).
    Returns False, changing nothing, when a recipient is not a user of the account."""
    known = set(await db.scalars(select(User.id).where(User.account_id == account_id)))
    if not recipient_ids <= known:
        return False
    await db.execute(
        update(Account)
        .where(Account.id == account_id)
        .values(usage_alert_thresholds=sorted(set(thresholds)))
    )
    await db.execute(
        update(User)
        .where(User.account_id == account_id)
        .values(usage_alerts=User.id.in_(recipient_ids) if recipient_ids else False)
    )
    return True


class AllowancePolicy(NamedTuple):
    """Whether the account stops at its allowance, the allowance (requests per cycle), and
    when the cycle asked about was refused at that allowance (None: it was not)."""

    stop: bool
    allowance: int
    stopped_at: datetime | None


async def allowance_policy(
    db: AsyncSession, account_id: uuid.UUID, cycle_start: datetime
) -> AllowancePolicy:
    """The account's :class:`AllowancePolicy` in the cycle starting at ``cycle_start``."""
    row = (
        await db.execute(
            select(
                Account.stop_at_allowance,
                literal_column(allowance_sql("account"), BigInteger),
                UsageTotal.allowance_reached_at,
            )
            .outerjoin(
                UsageTotal,
                (UsageTotal.account_id == Account.id)
                & (UsageTotal.cycle_start == cycle_start)
                & (
                    UsageTotal.allowance_reached
                    == literal_column(allowance_sql("account"), BigInteger)
                ),
            )
            .where(Account.id == account_id)
        )
    ).one()
    return AllowancePolicy(*row)


async def set_stop_at_allowance(db: AsyncSession, account_id: uuid.UUID, stop: bool) -> None:
    """Whether the account stops at its allowance from its next metering batch on."""
    await db.execute(update(Account).where(Account.id == account_id).values(stop_at_allowance=stop))


async def cycle_anchor(db: AsyncSession, account_id: uuid.UUID) -> datetime:
    """The account's billing cycle anchor (cycles are monthly from it)."""
    anchor = await db.scalar(select(Account.billing_cycle_anchor).where(Account.id == account_id))
    assert anchor is not None, "the caller's account exists"
    return anchor


# GET /web/usage (README "Usage API"): the page's JSON is built by PostgreSQL
# (api/usage/series_sql.py) and sent with asyncpg itself on the autocommit read engine, as
# GET /web/account is: an hour's page holds thousands of groups.


async def read_cycle_anchor(read_engine: AsyncEngine, account_id: uuid.UUID) -> datetime:
    """The account's billing cycle anchor, on a connection of ``read_engine``."""
    async with driver_connection(read_engine) as connection:
        anchor: datetime | None = await connection.fetchval(
            "SELECT billing_cycle_anchor FROM account WHERE id = $1", account_id
        )
    assert anchor is not None, "the caller's account exists"
    return anchor


class UsagePageRow(NamedTuple):
    """What the page's statement answers: the ``buckets``, ``labels`` and ``apiKeys`` of
    ``UsageResponse`` (UTF-8 JSON), and the names of the labels a query may group by (those of
    the retention, sorted; None unless grouped by a label)."""

    buckets: bytes
    labels: bytes
    api_keys: bytes
    known_labels: list[str] | None


async def usage_page_row(
    read_engine: AsyncEngine,
    statement: Statement,
    values: Mapping[str, object],
) -> UsagePageRow:
    """Run a page's ``statement`` (:func:`api.usage.series_sql.page_sql`) with ``values`` by
    name (``account`` is the caller's: every table it reads is filtered by it, the keys' rows
    through ``api_key.account_id``)."""
    async with driver_connection(read_engine) as connection:
        row = await connection.fetchrow(statement.text, *(values[n] for n in statement.names))
    return UsagePageRow(*row)


_HOURLY_ROLLUP_TABLES = ("usage_hourly", "api_key_usage_hourly", "usage_label_hourly")


async def delete_hourly_rollups_before(db: AsyncSession, before: datetime) -> int:
    """Delete the hourly rollups of every account for the hours that start before ``before``;
    returns how many rows went. One statement per table (their keys lead with the account, the
    key or the label, so each is one scan; run daily, each deletes about a day of rows)."""
    deleted = 0
    for table in _HOURLY_ROLLUP_TABLES:
        result = await db.execute(
            text(f"DELETE FROM {table} WHERE hour < :before"),  # noqa: S608 - our table names
            {"before": before},
        )
        deleted += result.rowcount  # type: ignore[attr-defined]
    return deleted
