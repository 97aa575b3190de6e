"""The signed-in person's sessions (README "Sessions"): ``/web/sessions``. A person's own
operations: an access token may not use them."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response

from api.identity.sessions import service
from api.identity.sessions.errors import SessionNotFound
from api.identity.sessions.schemas import EndedSessions, SessionsResponse
from api.kernel.errors import RequestValidationFailed, error_responses
from api.principal.dependencies import Claims, CurrentUser, DbSession, Permit
from api.principal.errors import AccountRequired, NotAuthenticated, SignInPolicyRefusal
from api.principal.roles import Permission

router = APIRouter(prefix="/web/sessions", tags=["session"])
# Beside sign-out, not under /web/sessions: there 'end-others' would also name a session (an
# OPTIONS would advertise DELETE /web/sessions/{session_id} for it).
others_router = APIRouter(prefix="/web/session", tags=["session"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal)


@router.get(
    "",
    response_model=SessionsResponse,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(*_AUTH),
)
async def list_sessions(caller: CurrentUser, claims: Claims, db: DbSession) -> SessionsResponse:
    """Where the signed-in user is signed in: their live sessions, the latest active first,
    this browser's marked ``current``."""
    return await service.list_sessions(db, claims)


@router.delete(
    "/{session_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(*_AUTH, SessionNotFound, RequestValidationFailed),
)
async def end_session(
    session_id: uuid.UUID, caller: CurrentUser, claims: Claims, db: DbSession
) -> Response:
    """Sign one of the user's sessions out: its next request, refresh included, is refused
    (401 ``SessionEnded``), even with a token refreshed a moment ago."""
    await service.end_one(db, claims, session_id)
    return Response(status_code=204)


@others_router.post(
    "/sign-out-others",
    response_model=EndedSessions,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(*_AUTH),
)
async def end_other_sessions(caller: CurrentUser, claims: Claims, db: DbSession) -> EndedSessions:
    """Sign out all other sessions (a lost laptop): every live session of the user but this
    browser's ends at once."""
    return EndedSessions(ended=await service.end_others(db, claims))
