"""Usage routes: the metering intake (the test service reports ``ai()`` usage with the
account's API key), usage over any range (``GET /web/usage``), and the usage alerts, limits,
breakdown and export of Account Information.

All in the contract (openapi.json); the handbook's "Metering intake" and "Usage API" pages
document them for integrators.
"""

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.responses import StreamingResponse

from api.kernel.errors import NotFound, RateLimited, RequestValidationFailed, error_responses
from api.principal.dependencies import (
    ApiKeyAccount,
    Audit,
    CurrentUser,
    DbSession,
    KeyAccountQuota,
    KeyAccountThrottle,
    Permit,
    QuotaSpender,
    ReadEngine,
)
from api.principal.errors import (
    AccountRequired,
    ApiKeyRequired,
    Forbidden,
    InvalidApiKey,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.principal.roles import Permission
from api.usage import series, service
from api.usage.errors import (
    AllowanceReached,
    InvalidCursor,
    KeyLimitReached,
    OutsideRetention,
    RangeOutOfOrder,
    RangeTooLong,
    RecordInTheFuture,
    RecordTooOld,
    UnknownAlertRecipient,
    UnknownLabel,
)
from api.usage.schemas import (
    LabelName,
    UsageAlertSettings,
    UsageAlertSettingsUpdate,
    UsageBatchCreate,
    UsageBatchResponse,
    UsageBreakdown,
    UsageLimits,
    UsageLimitsUpdate,
    UsageQuery,
    UsageResponse,
)
from api.usage.throttles import METERING, METERING_RECORDS

router = APIRouter(prefix="/metering", tags=["usage"])
web_router = APIRouter(prefix="/web", tags=["usage"])

CycleStartMs = Annotated[
    int,
    Query(
        alias="cycleStartMs",
        ge=0,
        le=253_402_300_799_999,
        description="startMs of one of the 12 cycles GET /web/account shows.",
    ),
]
LabelQuery = Annotated[
    LabelName | None,
    Query(
        description=(
            "The name of a label to break the requests down by its values (left out: the "
            "first of the cycle's label names)."
        )
    ),
]


@router.post(
    "/usage",
    response_model=UsageBatchResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[Permit(Permission.API_KEY), KeyAccountThrottle(METERING)],
    responses=error_responses(
        ApiKeyRequired,
        InvalidApiKey,
        RateLimited,
        KeyLimitReached,
        AllowanceReached,
        RecordInTheFuture,
        RecordTooOld,
        RequestValidationFailed,
    ),
    openapi_extra={
        "requestBody": {
            "content": {
                "application/json": {
                    "examples": {
                        "batch": {
                            "summary": "Two metered ai() calls",
                            "value": {
                                "records": [
                                    {
                                        "idempotencyKey": "3f0c6b1e-8f7a-4c1e-9a53-2d2b4f6c9e01",
                                        "platform": "web",
                                        "runs": 1,
                                        "credits": 4,
                                        "time": "2026-11-21T10:15:00Z",
                                        "labels": {
                                            "project": "checkout-suite",
                                            "ci": "github-actions",
                                        },
                                    },
                                    {
                                        "idempotencyKey": "9b7d2a44-1c3e-4f8a-b6d0-5e4f3a2b1c0d",
                                        "platform": "nativeMobile",
                                        "runs": 1,
                                        "credits": 2,
                                        "time": 1795256160000,
                                    },
                                ]
                            },
                        }
                    }
                }
            }
        }
    },
)
async def ingest_usage(
    body: UsageBatchCreate,
    holder: ApiKeyAccount,
    db: DbSession,
    records_quota: Annotated[QuotaSpender, KeyAccountQuota(METERING_RECORDS)],
) -> UsageBatchResponse:
    """Count a batch of usage records (idempotent per record key) for the key's account; a
    batch that takes the current cycle past 50, 80 or 100 % of the allowance emails the
    account's users once per cycle (README "Usage alerts and export"). A batch that would take
    a cycle past the key's monthly limit, or past the allowance of an account that stops at it,
    is refused whole with 429 (README "Metering intake"). The batch's records count against the
    account's records per minute first (duplicates too: they cost the same work)."""
    await records_quota.spend(len(body.records))
    return await service.ingest(db=db, holder=holder, records=body.records)


@web_router.get(
    "/usage-alerts",
    response_model=UsageAlertSettings,
    responses=error_responses(NotAuthenticated, AccountRequired, SignInPolicyRefusal),
    dependencies=[Permit(Permission.USAGE_READ)],
)
async def get_usage_alerts(caller: CurrentUser, db: DbSession) -> UsageAlertSettings:
    """Who gets the usage alerts and at which percentages of the allowance (README "Usage alerts
    and export")."""
    return await service.alert_settings(db=db, account_id=caller.account_id)


@web_router.put(
    "/usage-alerts",
    response_model=UsageAlertSettings,
    dependencies=[Permit(Permission.USAGE_WRITE)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        UnknownAlertRecipient,
        RequestValidationFailed,
    ),
)
async def put_usage_alerts(
    body: UsageAlertSettingsUpdate, caller: CurrentUser, db: DbSession, audit: Audit
) -> UsageAlertSettings:
    """Set the percentages that send an alert and the users who get them (Owners and
    Admins)."""
    return await service.update_alert_settings(
        db=db, audit=audit, account_id=caller.account_id, update=body
    )


@web_router.get(
    "/usage/limits",
    response_model=UsageLimits,
    responses=error_responses(NotAuthenticated, AccountRequired, SignInPolicyRefusal),
    dependencies=[Permit(Permission.USAGE_READ)],
)
async def get_usage_limits(caller: CurrentUser, db: DbSession) -> UsageLimits:
    """What the account does at 100 % of its plan's allowance: keep running or stop (README
    "Metering intake")."""
    return await service.usage_limits(db=db, account_id=caller.account_id)


@web_router.put(
    "/usage/limits",
    response_model=UsageLimits,
    dependencies=[Permit(Permission.USAGE_WRITE)],
    responses=error_responses(
        NotAuthenticated, AccountRequired, SignInPolicyRefusal, Forbidden, RequestValidationFailed
    ),
)
async def put_usage_limits(
    body: UsageLimitsUpdate, caller: CurrentUser, db: DbSession, audit: Audit
) -> UsageLimits:
    """Keep running at the allowance, or stop at it (Owners and Admins; audited)."""
    return await service.update_usage_limits(
        db=db, audit=audit, account_id=caller.account_id, update=body
    )


@web_router.get(
    "/usage",
    response_model=UsageResponse,
    responses={
        200: {
            "description": (
                "A page of the range's buckets: JSON (`UsageResponse`), or CSV (RFC 4180) with "
                "`Accept: text/csv`: `"
                + ",".join(series.CSV_COLUMNS)
                + "` a line per bucket and platform, or with `groupBy` `"
                + ",".join(series.CSV_GROUPED_COLUMNS)
                + "` a line per group of a bucket and platform"
            ),
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "headers": {
                "Link": {
                    "description": (
                        'The next page, `<...&cursor=...>; rel="next"` (RFC 8288); absent on '
                        "the last page."
                    ),
                    "schema": {"type": "string"},
                }
            },
        },
        **error_responses(
            NotAuthenticated,
            AccountRequired,
            SignInPolicyRefusal,
            RangeOutOfOrder,
            RangeTooLong,
            OutsideRetention,
            UnknownLabel,
            InvalidCursor,
            RequestValidationFailed,
        ),
    },
    dependencies=[Permit(Permission.USAGE_READ)],
)
async def get_usage(
    query: Annotated[UsageQuery, Query()], request: Request, caller: CurrentUser, reads: ReadEngine
) -> Response:
    """The account's usage over a range of the last 12 billing cycles, per hour, UTC day or
    billing cycle: requests, records and runs, per platform, optionally per API key or per
    value of a label; a page of buckets at a time (README "Usage API")."""
    # A read only: on the autocommit read engine, as GET /web/account.
    page = await service.usage_page(reads=reads, account_id=caller.account_id, query=query)
    headers = series.next_link(request.url.path, request.query_params, page.next_cursor)
    if series.wants_csv(request.headers.get("accept")):
        return StreamingResponse(
            series.as_csv(page),
            media_type="text/csv; charset=utf-8",
            headers={**headers, "Content-Disposition": series.csv_disposition(page)},
        )
    return Response(series.as_json(page), media_type="application/json", headers=headers)


@web_router.get(
    "/usage/breakdown",
    response_model=UsageBreakdown,
    responses=error_responses(
        NotAuthenticated, AccountRequired, SignInPolicyRefusal, NotFound, RequestValidationFailed
    ),
    dependencies=[Permit(Permission.USAGE_READ)],
    deprecated=True,
)
async def usage_breakdown(
    caller: CurrentUser, db: DbSession, cycle_start_ms: CycleStartMs, label: LabelQuery = None
) -> UsageBreakdown:
    """Where one billing cycle's requests went: by API key and by the values of a label (README
    "Usage alerts and export"). Deprecated: `GET /web/usage?granularity=cycle` over the cycle
    with `groupBy=apiKey` and `groupBy=label:<name>` gives the same figures per platform (README
    "Usage API"); kept for the integrators who call it."""
    return await service.breakdown(
        db=db, account_id=caller.account_id, cycle_start_ms=cycle_start_ms, label=label
    )


@web_router.get(
    "/usage/export",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": (
                "CSV (RFC 4180): date,platform,runs,credits per UTC day and platform, then the "
                "day's requests per API key and per value of the label"
            ),
            "content": {"text/csv": {"schema": {"type": "string"}}},
        },
        **error_responses(
            NotAuthenticated,
            AccountRequired,
            SignInPolicyRefusal,
            NotFound,
            RequestValidationFailed,
        ),
    },
    dependencies=[Permit(Permission.USAGE_READ)],
)
async def export_usage(
    caller: CurrentUser, db: DbSession, cycle_start_ms: CycleStartMs, label: LabelQuery = None
) -> StreamingResponse:
    """One billing cycle's usage per day and platform as a CSV download (README "Usage alerts and
    export")."""
    start, lines = await service.export_rows(
        db=db, account_id=caller.account_id, cycle_start_ms=cycle_start_ms, label=label
    )
    filename = f"usage-{start.date().isoformat()}.csv"
    return StreamingResponse(
        lines,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
