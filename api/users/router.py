"""User Management routes (SPEC 7: POST /web/users, PUT and DELETE /web/users/{id})."""

import uuid

from fastapi import APIRouter, Response

from api.auth.errors import AccountRequired, NotAuthenticated
from api.deps import Cognito, CurrentUser, DbSession, InvitationThrottle
from api.errors import (
    EmailInUse,
    NotFound,
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.users import service
from api.users.errors import CannotDeleteSelf, InviteRefusedWithSso, LastUserRequired
from api.users.schemas import UserCreate, UserResponse, UserUpdate

router = APIRouter(prefix="/web/users", tags=["users"])

_AUTH = (NotAuthenticated, AccountRequired)


@router.post(
    "",
    status_code=201,
    response_model=UserResponse,
    dependencies=[InvitationThrottle],
    responses=error_responses(
        *_AUTH,
        RateLimited,
        EmailInUse,
        InviteRefusedWithSso,
        ProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def invite_user(
    body: UserCreate, caller: CurrentUser, db: DbSession, cognito: Cognito
) -> UserResponse:
    """Invite a user; Cognito emails them a temporary password to sign in with."""
    return UserResponse(user=await service.invite(db, cognito, caller, body))


@router.put(
    "/{user_id}",
    response_model=UserResponse,
    responses=error_responses(*_AUTH, NotFound, RequestValidationFailed),
)
async def update_user(
    user_id: uuid.UUID, body: UserUpdate, caller: CurrentUser, db: DbSession
) -> UserResponse:
    """Change a user's first and last name (the email is not editable)."""
    return UserResponse(user=await service.update(db, caller, user_id, body))


@router.delete(
    "/{user_id}",
    status_code=204,
    response_class=Response,
    responses=error_responses(
        *_AUTH,
        NotFound,
        CannotDeleteSelf,
        LastUserRequired,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def delete_user(
    user_id: uuid.UUID, caller: CurrentUser, db: DbSession, cognito: Cognito
) -> Response:
    """Remove a user from the account and from Cognito."""
    await service.delete(db, cognito, caller, user_id)
    return Response(status_code=204)
