"""Account Information routes (SPEC 7: GET and PUT /web/account)."""

from fastapi import APIRouter, Response, status

from api.account import service
from api.account.schemas import AccountResponse, AccountUpdate
from api.auth.errors import AccountRequired, NotAuthenticated
from api.deps import Claims, CurrentUser, DbSession, ReadEngine
from api.errors import RequestValidationFailed, error_responses

router = APIRouter(prefix="/web", tags=["account"])


@router.get(
    "/account",
    response_model=AccountResponse,
    status_code=status.HTTP_200_OK,
    responses=error_responses(NotAuthenticated, AccountRequired),
)
async def get_account(claims: Claims, reads: ReadEngine) -> Response:
    """The caller's account: name, API key, usage per billing cycle, plan, card, users, SSO."""
    body = await service.account_view(reads, claims.username)
    return Response(body, media_type="application/json")


@router.put(
    "/account",
    response_model=AccountResponse,
    status_code=status.HTTP_200_OK,
    responses=error_responses(NotAuthenticated, AccountRequired, RequestValidationFailed),
)
async def update_account(
    body: AccountUpdate, caller: CurrentUser, db: DbSession
) -> AccountResponse:
    """Rename the caller's account; returns the updated account (SPEC 7: PUT /web/account)."""
    return AccountResponse(account=await service.rename_account(db, caller.account_id, body.name))
