"""Session routes: the signed-in session, password sign-in, refresh and sign-out (SPEC 7)."""

from fastapi import APIRouter, Response

from api.deps import AccessToken, Claims, Cognito, CurrentUser
from api.errors import (
    AccountRequired,
    NotAuthenticated,
    ProviderRefused,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.session import service
from api.session.schemas import (
    RefreshRequest,
    Session,
    SessionAccount,
    SessionResponse,
    SessionUser,
    SignInRequest,
    SignInResponse,
    TokensOut,
)

router = APIRouter(prefix="/web", tags=["session"])


@router.get(
    "/session",
    response_model=SessionResponse,
    responses=error_responses(NotAuthenticated, AccountRequired),
)
async def get_session(caller: CurrentUser) -> SessionResponse:
    """The signed-in user and their account's name. Reads only our database."""
    return SessionResponse(
        session=Session(
            user=SessionUser(
                id=caller.user_id,
                first_name=caller.first_name,
                last_name=caller.last_name,
                email=caller.email,
                elevation_role=caller.elevation_role,
            ),
            account=SessionAccount(name=caller.account_name),
        )
    )


@router.post(
    "/session/sign-in",
    response_model=SignInResponse,
    responses=error_responses(ProviderRefused, RequestValidationFailed, VendorUnavailable),
)
async def sign_in(body: SignInRequest, cognito: Cognito) -> SignInResponse:
    """Sign in with email and password: tokens, or a challenge to answer (SPEC 4)."""
    return await service.sign_in(cognito, body.email, body.password)


@router.post(
    "/session/refresh",
    response_model=TokensOut,
    responses=error_responses(NotAuthenticated, RequestValidationFailed, VendorUnavailable),
)
async def refresh(body: RefreshRequest, cognito: Cognito) -> TokensOut:
    """New access and ID tokens for a refresh token."""
    return await service.refresh(cognito, body.refresh_token)


@router.post(
    "/session/sign-out",
    status_code=204,
    response_class=Response,
    responses=error_responses(NotAuthenticated, VendorUnavailable),
)
async def sign_out(_: Claims, token: AccessToken, cognito: Cognito) -> Response:
    """Sign out everywhere (Cognito GlobalSignOut); the SPA then drops its tokens."""
    await service.sign_out(cognito, token)
    return Response(status_code=204)
