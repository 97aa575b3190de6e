"""SSO setting route (SPEC 7: POST /web/sso)."""

from fastapi import APIRouter

from api.auth.errors import AccountRequired, NotAuthenticated
from api.deps import CurrentUser, DbSession
from api.errors import RequestValidationFailed, error_responses
from api.sso import service
from api.sso.errors import GoogleSsoAuthTypeRequired, PersonalGmailAccount
from api.sso.schemas import SsoResponse, SsoUpdate

router = APIRouter(prefix="/web", tags=["sso"])


@router.post(
    "/sso",
    response_model=SsoResponse,
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        PersonalGmailAccount,
        GoogleSsoAuthTypeRequired,
        RequestValidationFailed,
    ),
)
async def set_sso(body: SsoUpdate, caller: CurrentUser, db: DbSession) -> SsoResponse:
    """Require (or stop requiring) Google sign-in for the account."""
    return SsoResponse(sso=await service.set_google_sso(db, caller, body.require_google_sso))
