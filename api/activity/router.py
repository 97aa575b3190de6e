"""Activity routes (README "Audit log"): the account's audit log for Owners and Admins,
GET /web/audit-events (a page), /web/audit-events/actors (the actor filter) and
/web/audit-events/export (CSV). Reads only: they run on the autocommit read connection."""

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from api.activity import service
from api.activity.errors import InvalidCursor
from api.activity.schemas import (
    AuditActorsResponse,
    AuditEventFilters,
    AuditEventsQuery,
    AuditEventsResponse,
)
from api.kernel.errors import RequestValidationFailed, error_responses
from api.principal.dependencies import CurrentUser, DbSession, Permit, ReadEngine
from api.principal.errors import AccountRequired, Forbidden, NotAuthenticated, SignInPolicyRefusal
from api.principal.roles import Permission

router = APIRouter(prefix="/web/audit-events", tags=["activity"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal, Forbidden)


@router.get(
    "",
    response_model=AuditEventsResponse,
    dependencies=[Permit(Permission.AUDIT_READ)],
    responses=error_responses(*_AUTH, InvalidCursor, RequestValidationFailed),
)
async def list_audit_events(
    query: Annotated[AuditEventsQuery, Query()], caller: CurrentUser, db: DbSession
) -> AuditEventsResponse:
    """A page of the account's audit log, newest first, with the filters (Owners and
    Admins)."""
    return await service.list_events(db, caller.account_id, query)


@router.get(
    "/actors",
    response_model=AuditActorsResponse,
    dependencies=[Permit(Permission.AUDIT_READ)],
    responses=error_responses(*_AUTH),
)
async def list_audit_actors(caller: CurrentUser, db: DbSession) -> AuditActorsResponse:
    """Everyone who appears in the account's audit log as an actor, deleted users included
    (Owners and Admins)."""
    return await service.list_actors(db, caller.account_id)


@router.get(
    "/export",
    response_class=StreamingResponse,
    dependencies=[Permit(Permission.AUDIT_READ)],
    responses={
        200: {
            "description": "CSV (RFC 4180) of every matching event, newest first: "
            + ",".join(service.CSV_COLUMNS),
            "content": {"text/csv": {"schema": {"type": "string"}}},
        },
        **error_responses(*_AUTH, RequestValidationFailed),
    },
)
async def export_audit_events(
    filters: Annotated[AuditEventFilters, Query()], caller: CurrentUser, reads: ReadEngine
) -> StreamingResponse:
    """The account's audit log with the same filters as a CSV download, streamed (Owners and
    Admins)."""
    return StreamingResponse(
        service.export_csv(reads, caller.account_id, filters),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{service.export_filename()}"'},
    )
