"""Account Information routes (SPEC 7: GET and PUT /web/account)."""

from fastapi import APIRouter, Request, Response, status

from api.account import service
from api.account.schemas import AccountResponse, AccountUpdate
from api.kernel.errors import RequestValidationFailed, error_responses
from api.kernel.http.etags import (
    CONDITIONAL_GET_RESPONSES,
    IF_NONE_MATCH_PARAMETER,
    conditional_json,
)
from api.principal.dependencies import (
    Audit,
    ClaimsOrToken,
    CurrentUser,
    DbSession,
    Permit,
    ReadEngine,
)
from api.principal.errors import AccountRequired, Forbidden, NotAuthenticated, SignInPolicyRefusal
from api.principal.roles import Permission

router = APIRouter(prefix="/web", tags=["account"])


@router.get(
    "/account",
    response_model=AccountResponse,
    status_code=status.HTTP_200_OK,
    responses={
        **error_responses(NotAuthenticated, AccountRequired, SignInPolicyRefusal),
        **CONDITIONAL_GET_RESPONSES,
    },
    openapi_extra=IF_NONE_MATCH_PARAMETER,
    dependencies=[Permit(Permission.ACCOUNT_READ)],
)
async def get_account(claims: ClaimsOrToken, reads: ReadEngine, request: Request) -> Response:
    """The caller's account: name, API key, usage per billing cycle, plan, card, users, SSO.
    An If-None-Match naming the current body's ETag is answered 304 with no body."""
    return conditional_json(await service.account_view(reads=reads, claims=claims), request)


@router.put(
    "/account",
    response_model=AccountResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[Permit(Permission.ACCOUNT_WRITE)],
    responses=error_responses(
        NotAuthenticated, AccountRequired, SignInPolicyRefusal, Forbidden, RequestValidationFailed
    ),
)
async def update_account(
    body: AccountUpdate, caller: CurrentUser, db: DbSession, audit: Audit
) -> Response:
    """Rename the caller's account (Owners and Admins); returns the updated account (SPEC 7:
    PUT /web/account)."""
    renamed = await service.rename_account(
        db=db, audit=audit, account_id=caller.account_id, name=body.name
    )
    return Response(renamed, media_type="application/json")
