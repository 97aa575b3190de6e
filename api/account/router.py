"""Account Information routes (SPEC 7: GET /web/account)."""

from fastapi import APIRouter

from api.account import service
from api.account.schemas import AccountResponse
from api.deps import CurrentUser, DbSession
from api.errors import AccountRequired, NotAuthenticated, error_responses

router = APIRouter(prefix="/web", tags=["account"])


@router.get(
    "/account",
    response_model=AccountResponse,
    responses=error_responses(NotAuthenticated, AccountRequired),
)
async def get_account(caller: CurrentUser, db: DbSession) -> AccountResponse:
    """The caller's account: name, API key, usage per billing cycle, plan, card, users, SSO."""
    return AccountResponse(account=await service.account_summary(db, caller.account_id))
