"""Metering rules (README "Metering intake"): count each record once, in the billing cycle of its
time, into the per-cycle rollups that ``GET /web/account`` reads (SPEC 3 usage, 9 cycles)."""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, date, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.audit import AuditAction, AuditTrail, Target, changed
from api.kernel.errors import NotFound
from api.models import Platform
from api.principal.api_keys import masked
from api.principal.principal import KeyHolder
from api.usage import alerts, limits, ranges, repository, series
from api.usage.cycles import (
    USAGE_CYCLES_SHOWN,
    containing_cycle_starts,
    current_cycle_start,
    epoch_ms,
    oldest_accepted_time,
    recent_cycle_starts,
    reset_date,
)
from api.usage.errors import (
    InvalidCursor,
    OutsideRetention,
    RangeOutOfOrder,
    RangeTooLong,
    RecordInTheFuture,
    RecordTooOld,
    UnknownAlertRecipient,
    UnknownLabel,
)
from api.usage.repository import NewRecord
from api.usage.schemas import (
    MAX_CLOCK_SKEW,
    TOP_LABEL_VALUES,
    AlertReached,
    AlertRecipient,
    AtAllowance,
    KeyUsage,
    LabelValueUsage,
    UsageAlertSettings,
    UsageAlertSettingsUpdate,
    UsageBatchResponse,
    UsageBreakdown,
    UsageLimits,
    UsageLimitsUpdate,
    UsageQuery,
    UsageRecordCreate,
    UsageShare,
)
from api.usage.series_sql import Grain, Grouping, page_sql


async def ingest(
    *,
    db: AsyncSession,
    holder: KeyHolder,
    records: Sequence[UsageRecordCreate],
) -> UsageBatchResponse:
    """Count a batch of records for the API key's account, all or nothing.

    A key repeated inside the batch counts once (the first occurrence); a key the account
    already has counts zero times. Each record lands in the billing cycle containing its
    ``time`` (monthly from the account's anchor; times before the anchor in the first cycle).
    Only flushes: the request's transaction commits the records, the rollups (per cycle and
    per day) and the usage alerts this batch set off (README "Usage alerts and export"; their
    emails deferred to the job engine in the same transaction).

    Spend limits (README "Metering intake"): when the key has a monthly limit or the account
    stops at its allowance, a batch that would take a cycle's requests past one is refused
    whole, counted nowhere (its work is rolled back to a savepoint), and the first refusal at a
    limit in a cycle emails the alert recipients (api/usage/limits.py).

    Returns:
        how many records were counted now and how many were duplicates.

    Raises:
        RecordInTheFuture: a ``time`` more than ``MAX_CLOCK_SKEW`` ahead of the clock (400).
        RecordTooOld: a ``time`` before the start of the previous billing cycle (400).
        KeyLimitReached: past the key's monthly limit (429, ``Retry-After``).
        AllowanceReached: past the allowance of an account that stops at it (429).
    """
    now = datetime.now(UTC)
    latest = now + MAX_CLOCK_SKEW
    oldest = oldest_accepted_time(holder.billing_cycle_anchor, now)
    unique: dict[str, UsageRecordCreate] = {}
    for record in records:
        if record.time > latest:
            raise RecordInTheFuture(
                f"time must not be in the future (record {record.idempotency_key!r})"
            )
        if record.time < oldest:
            raise RecordTooOld(
                f"time must not be before {oldest.astimezone(UTC).isoformat()}, the start of "
                f"the previous billing cycle (record {record.idempotency_key!r})"
            )
        unique.setdefault(record.idempotency_key, record)
    ordered = sorted(unique.values(), key=lambda r: r.idempotency_key)
    starts = containing_cycle_starts(holder.billing_cycle_anchor, [r.time for r in ordered])
    new_records = [
        NewRecord(r.idempotency_key, r.platform, r.runs, r.credits, r.time, start, r.labels)
        for r, start in zip(ordered, starts, strict=True)
    ]
    allowance = holder.allowance if holder.stop_at_allowance else None
    if allowance is None and holder.monthly_limit is None:
        counted = await repository.insert_records(db, holder.account_id, new_records, holder.key_id)
    else:
        # A refused batch is undone to the savepoint; its notice commits (limits.refuse).
        async with db.begin_nested() as savepoint:
            counted = await repository.insert_records(
                db,
                holder.account_id,
                new_records,
                holder.key_id,
                allowance=allowance,
                key_limit=holder.monthly_limit,
            )
            if counted.refused:
                await savepoint.rollback()
        if counted.refused:
            await limits.refuse(db, holder, counted, now)
    accepted = counted.accepted
    current = current_cycle_start(holder.billing_cycle_anchor, now)
    if accepted and current in starts:
        await alerts.check(db, holder.account_id, current)
    return UsageBatchResponse(accepted=accepted, duplicates=len(records) - accepted)


async def alert_settings(*, db: AsyncSession, account_id: uuid.UUID) -> UsageAlertSettings:
    """``GET /web/usage-alerts`` of the account (README "Usage alerts and export")."""
    anchor = await repository.cycle_anchor(db, account_id)
    current = current_cycle_start(anchor, datetime.now(UTC))
    thresholds, users, reached = await repository.alert_settings(db, account_id, current)
    return UsageAlertSettings(
        thresholds=[t for t in alerts.THRESHOLDS if t in thresholds],
        recipients=[
            AlertRecipient(
                user_id=u.id,
                email=u.email,
                first_name=u.first_name,
                last_name=u.last_name,
                enabled=u.usage_alerts,
            )
            for u in users
        ],
        reached=[AlertReached(threshold=t, reached_at=at) for t, at in reached],
    )


async def update_alert_settings(
    *, db: AsyncSession, audit: AuditTrail, account_id: uuid.UUID, update: UsageAlertSettingsUpdate
) -> UsageAlertSettings:
    """``PUT /web/usage-alerts``: the thresholds and recipients, all or nothing; recorded in
    the audit log when they change.

    Raises:
        UnknownAlertRecipient: a recipient id is not a user of the account (422).
    """
    before = await alert_settings(db=db, account_id=account_id)
    if not await repository.set_alert_settings(
        db, account_id, list(update.thresholds), set(update.recipient_ids)
    ):
        raise UnknownAlertRecipient()
    await db.flush()
    after = await alert_settings(db=db, account_id=account_id)
    changes = changed(
        thresholds=(sorted(before.thresholds), sorted(after.thresholds)),
        recipients=(_recipient_emails(before), _recipient_emails(after)),
    )
    if changes:
        await audit.record(
            AuditAction.USAGE_ALERTS_CHANGED, Target("account", account_id, "Usage alerts"), changes
        )
    return after


def _recipient_emails(settings: UsageAlertSettings) -> list[str]:
    return sorted(r.email for r in settings.recipients if r.enabled)


_AT_ALLOWANCE: dict[bool, AtAllowance] = {False: "keepRunning", True: "stop"}


async def usage_limits(*, db: AsyncSession, account_id: uuid.UUID) -> UsageLimits:
    """``GET /web/usage/limits``: whether the account stops at its allowance, the allowance, and
    when the current cycle stopped there (README "Metering intake")."""
    anchor = await repository.cycle_anchor(db, account_id)
    policy = await repository.allowance_policy(
        db, account_id, current_cycle_start(anchor, datetime.now(UTC))
    )
    return UsageLimits(
        at_allowance=_AT_ALLOWANCE[policy.stop],
        allowance=policy.allowance,
        stopped_at=policy.stopped_at if policy.stop else None,
    )


async def update_usage_limits(
    *, db: AsyncSession, audit: AuditTrail, account_id: uuid.UUID, update: UsageLimitsUpdate
) -> UsageLimits:
    """``PUT /web/usage/limits``: keep running at the allowance or stop at it, from the next
    metering batch on; recorded in the audit log when it changes."""
    before = await usage_limits(db=db, account_id=account_id)
    if before.at_allowance != update.at_allowance:
        await repository.set_stop_at_allowance(db, account_id, update.at_allowance == "stop")
        await audit.record(
            AuditAction.USAGE_LIMIT_CHANGED,
            Target("account", account_id, "Usage limit"),
            {"atAllowance": (before.at_allowance, update.at_allowance)},
        )
    return await usage_limits(db=db, account_id=account_id)


async def _shown_cycle(
    db: AsyncSession, account_id: uuid.UUID, cycle_start_ms: int, now: datetime
) -> datetime:
    """The start of the cycle ``cycle_start_ms`` names, one of the last 12 (the graph's).

    Raises:
        NotFound: it is not the start of one of them.
    """
    anchor = await repository.cycle_anchor(db, account_id)
    starts = recent_cycle_starts(anchor, now, USAGE_CYCLES_SHOWN)
    start = next((s for s in starts if epoch_ms(s) == cycle_start_ms), None)
    if start is None:
        raise NotFound("There is no such billing cycle in the last 12.")
    return start


def _share(requests: int, total: int) -> UsageShare:
    return UsageShare(requests=requests, share=requests / total if total else 0.0)


async def breakdown(
    *,
    db: AsyncSession,
    account_id: uuid.UUID,
    cycle_start_ms: int,
    label: str | None,
    now: datetime | None = None,
) -> UsageBreakdown:
    """``GET /web/usage/breakdown``: one of the last 12 billing cycles' requests by API key and
    by the values of ``label`` (None: the first of the cycle's label names), its top
    ``TOP_LABEL_VALUES``, the other values, and the requests without it (README "Usage alerts
    and export"). Reads only rollups: the cycle's platform totals, one row per key, and the
    label's rows in the cycle.

    Raises:
        NotFound: ``cycle_start_ms`` is not the start of one of the cycles shown.
    """
    start = await _shown_cycle(db, account_id, cycle_start_ms, now or datetime.now(UTC))
    return await _breakdown(db, account_id, start, label)


async def _breakdown(
    db: AsyncSession, account_id: uuid.UUID, start: datetime, label: str | None
) -> UsageBreakdown:
    total = await repository.cycle_credits(db, account_id, start)
    keys = await repository.credits_by_key(db, account_id, start)
    labels = await repository.label_names(db, account_id, start)
    label = label or next(iter(labels), None)
    values, labelled = (
        await repository.top_label_values(db, account_id, start, label, TOP_LABEL_VALUES)
        if label
        else ([], 0)
    )
    named = sum(credits for _, credits in values)
    return UsageBreakdown(
        cycle_start_ms=epoch_ms(start),
        requests=total,
        by_key=[
            KeyUsage(
                key_id=k.key_id,
                masked=masked(k.last4),
                expired=k.expired,
                **_share(k.credits, total).model_dump(),
            )
            for k in keys
        ],
        unknown_key=_share(total - sum(k.credits for k in keys), total),
        labels=labels,
        label=label,
        by_label=[
            LabelValueUsage(value=value, **_share(credits, total).model_dump())
            for value, credits in values
        ],
        other_values=_share(labelled - named, total),
        unlabelled=_share(total - labelled, total),
    )


CSV_COLUMNS = ("date", "platform", "runs", "credits")


def _csv_line(cells: Sequence[object]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(cells)
    return out.getvalue()


async def export_rows(
    *,
    db: AsyncSession,
    account_id: uuid.UUID,
    cycle_start_ms: int,
    label: str | None = None,
    now: datetime | None = None,
) -> tuple[datetime, AsyncIterator[str]]:
    """The usage of one of the last 12 billing cycles as CSV lines (README "Usage alerts and
    export"): a header, then for every UTC day of the cycle (up to today for the current one)
    one line per platform (``web``, ``nativeMobile``, ``api``) with its runs and credits, zeros
    included, days in order. Then the requests of that day and platform broken down as
    :func:`breakdown` does (``label`` as there): one column per API key (``key ak_…1a2b``, and
    ``key not recorded`` when some were metered before keys were), and for the label one per
    top value (``project=checkout-suite``), ``project (other values)`` and ``project (none)``;
    each group adds up to ``credits``. RFC 4180 (CRLF line ends, quoted where needed). Read
    from the daily rollups, however many records were metered.

    Returns:
        the cycle's start and the lines (an async iterator, for a streamed response).

    Raises:
        NotFound: ``cycle_start_ms`` is not the start of one of the cycles shown.
    """
    now = now or datetime.now(UTC)
    start = await _shown_cycle(db, account_id, cycle_start_ms, now)
    end = min(reset_date(start), now)
    rows = {(r.day, r.platform): r for r in await repository.daily_usage(db, account_id, start)}
    summary = await _breakdown(db, account_id, start, label)
    by_key = await repository.daily_credits_by_key(db, account_id, start)
    values = [v.value for v in summary.by_label]
    by_label = (
        await repository.daily_credits_by_label(db, account_id, start, summary.label, values)
        if summary.label
        else {}
    )
    # Label names start with a letter, so no header cell can read as a spreadsheet formula.
    header = [
        *CSV_COLUMNS,
        *(f"key {k.masked}" for k in summary.by_key),
        *(["key not recorded"] if summary.unknown_key.requests else []),
        *(f"{summary.label}={value}" for value in values),
        *([f"{summary.label} (other values)", f"{summary.label} (none)"] if summary.label else []),
    ]

    def extra(day: date, platform: Platform, credits: int) -> list[int]:
        keys = [by_key.get((day, platform, k.key_id), 0) for k in summary.by_key]
        unknown = [credits - sum(keys)] if summary.unknown_key.requests else []
        if not summary.label:
            return [*keys, *unknown]
        named = [by_label.get((day, platform, value), 0) for value in values]
        other = by_label.get((day, platform, None), 0)
        return [*keys, *unknown, *named, other, credits - sum(named) - other]

    async def lines() -> AsyncIterator[str]:
        yield _csv_line(header)
        day = start.astimezone(UTC).date()
        last = (end - timedelta(microseconds=1)).astimezone(UTC).date()
        while day <= last:
            for platform in Platform:
                row = rows.get((day, platform))
                runs, credits = (row.runs, row.credits) if row else (0, 0)
                yield _csv_line(
                    [day.isoformat(), platform.value, runs, credits, *extra(day, platform, credits)]
                )
            day += timedelta(days=1)

    return start, lines()


_GRAINS: dict[ranges.Granularity, Grain] = {
    ranges.Granularity.HOUR: "hour",
    ranges.Granularity.DAY: "day",
    ranges.Granularity.CYCLE: "cycle",
}


async def usage_page(
    *,
    reads: AsyncEngine,
    account_id: uuid.UUID,
    query: UsageQuery,
    now: datetime | None = None,
) -> series.UsagePage:
    """``GET /web/usage`` (README "Usage API"): one page of the account's usage over a range,
    in buckets of an hour, a UTC day or a billing cycle (``api/usage/ranges.py``), optionally
    grouped by API key or by the values of one label. Two round trips on ``reads`` (the
    autocommit engine): the account's anchor, then the page's statement
    (``api/usage/series_sql.py``: PostgreSQL builds the buckets' JSON from the rollups of the
    bucket's length, ``usage_hourly``, ``usage_daily`` or ``usage`` and their per-key and
    per-label twins, never the records).

    The range: ``from`` and ``to`` as given, or left out (``to``: now; ``from``: the retention's
    start, for hours 92 days before ``to`` if later; with a cursor, the first page's), widened
    to whole buckets; with a cursor, from the bucket it names.

    Raises:
        RangeOutOfOrder: ``from`` is not before ``to`` (400).
        OutsideRetention: ``from`` before the oldest billing cycle kept or ``to`` after the
            current one's end (400).
        RangeTooLong: hours over more than 92 days (400).
        UnknownLabel: ``groupBy=label:<name>`` and no record of the cycles kept carried it (400).
        InvalidCursor: ``cursor`` is not a page of this query (400).
    """
    now = now or datetime.now(UTC)
    granularity = query.granularity
    anchor = await repository.read_cycle_anchor(reads, account_id)
    kept = ranges.retention(anchor, now)
    window, first = _window(query, kept, anchor, now)
    edges, more = window.buckets(first, query.limit)
    grouping: Grouping = "none"
    label = None
    if query.group_by == "apiKey":
        grouping = "apiKey"
    elif query.group_by is not None:
        grouping, label = "label", query.group_by.removeprefix("label:")
    row = await repository.usage_page_row(
        reads,
        page_sql(_GRAINS[granularity], grouping),
        {
            "account": account_id,
            "starts": [start for start, _ in edges],
            "ends": [end for _, end in edges],
            "page_start": edges[0][0],
            "page_end": edges[-1][1],
            "label": label,
            "window_start": window.start,
            "window_end": window.end,
            "retention_start": kept.earliest,
        },
    )
    if label is not None and label not in (labels := row.known_labels or []):
        raise UnknownLabel(
            f"No record of the last {USAGE_CYCLES_SHOWN} billing cycles carries the label "
            f"{label!r} (labels: {', '.join(labels) or 'none'}).",
            labels=labels,
        )
    cursor = ranges.Cursor(granularity, window.start, window.end, edges[-1][1], query.group_by)
    return series.UsagePage(
        granularity=granularity,
        start=window.start,
        end=window.end,
        group_by=query.group_by,
        row=row,
        next_cursor=ranges.encode_cursor(cursor) if more else None,
    )


def _window(
    query: UsageQuery, kept: ranges.Retention, anchor: datetime, now: datetime
) -> tuple[ranges.Window, datetime]:
    """The window of whole buckets the query asks for, and the page's first bucket.

    Without a cursor, the range as given (or left out) must be one a query may ask for. With
    one, it is the first page's window (checked then), which a ``from`` or ``to`` sent again
    must widen to; the window must still lie within the retention (a cursor is no secret, and
    a new billing cycle may have begun since the first page).

    Raises:
        RangeOutOfOrder, OutsideRetention, RangeTooLong: see :func:`usage_page`.
        InvalidCursor: the cursor is no page of this query, or its window is no longer kept.
    """
    granularity = query.granularity
    if query.cursor is None:
        # An anchor still ahead of now (a cycle set to start later) keeps its first cycle.
        end = query.to or max(now, kept.earliest + timedelta(microseconds=1))
        start = query.from_ or ranges.default_range(granularity, kept, end)[0]
        _check_range(granularity, start, end, kept, from_given=query.from_ is not None)
        window = ranges.window(granularity, start, end, anchor)
        return window, window.start
    cursor = ranges.decode_cursor(query.cursor, query.group_by)
    if cursor is None or cursor.granularity is not granularity:
        raise InvalidCursor()
    window = ranges.Window(granularity, cursor.start, cursor.end, anchor)
    try:
        sent = ranges.window(
            granularity, query.from_ or cursor.start, query.to or cursor.end, anchor
        )
        kept_window = ranges.window(granularity, kept.earliest, kept.latest, anchor)
    except (OverflowError, ValueError) as exc:
        raise InvalidCursor() from exc
    longest = ranges.MAX_HOURLY_RANGE + timedelta(hours=2)  # widened by up to an hour a side
    if (
        (sent.start, sent.end) != (window.start, window.end)
        or not kept_window.start <= window.start < window.end <= kept_window.end
        or ranges.floor(granularity, window.end, anchor) != window.end
        or not window.is_bucket_start(window.start)
        or not window.is_bucket_start(cursor.next)
        or (granularity is ranges.Granularity.HOUR and window.end - window.start > longest)
    ):
        raise InvalidCursor()
    return window, cursor.next


def _check_range(
    granularity: ranges.Granularity,
    start: datetime,
    end: datetime,
    kept: ranges.Retention,
    *,
    from_given: bool = True,
) -> None:
    """Raise the error of a range ``[start, end)`` a query may not ask for (``from_given``:
    whether ``start`` was sent, or is the default the message then names)."""
    if start >= end:
        named = start.isoformat() if from_given else f"left out: {start.isoformat()}"
        raise RangeOutOfOrder(f"from ({named}) must be before to ({end.isoformat()})")
    if start < kept.earliest or end > kept.latest:
        raise OutsideRetention(
            f"The usage kept runs from {kept.earliest.isoformat()} (the start of the oldest of "
            f"the {USAGE_CYCLES_SHOWN} billing cycles kept) to {kept.latest.isoformat()} (the "
            "end of the current one): from and to must lie within it.",
            earliest=kept.earliest,
            latest=kept.latest,
        )
    if granularity is ranges.Granularity.HOUR and end - start > ranges.MAX_HOURLY_RANGE:
        raise RangeTooLong()


async def prune_hourly_rollups(db: AsyncSession, now: datetime) -> int:
    """Delete the hourly rollups older than ``ranges.HOURLY_ROLLUPS_KEPT`` (README "Usage API",
    the retention); returns how many rows went. The daily and cycle rollups stay."""
    return await repository.delete_hourly_rollups_before(db, now - ranges.HOURLY_ROLLUPS_KEPT)
