"""User Management routes (SPEC 7: POST /web/users, PUT and DELETE /web/users/{id}; README
"Roles and invitations": roles, and an invitation's Resend and Revoke at
/web/users/{id}/invitation)."""

import functools
import uuid
from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Response

from api.identity.membership.errors import (
    CannotChangeOwnRole,
    CannotDeleteSelf,
    LastOwnerRequired,
    LastUserRequired,
)
from api.identity.membership.pool_users import PoolUsers
from api.identity.membership.throttles import INVITATION
from api.identity.users import service
from api.identity.users.errors import InvitationNotPending, InviteRefusedWithSso
from api.identity.users.schemas import (
    MemberSessionsResponse,
    UserCreate,
    UserResponse,
    UserUpdate,
)
from api.kernel.errors import (
    EmailInUse,
    NotFound,
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.principal.dependencies import (
    AccountThrottle,
    Audit,
    Cognito,
    CurrentUser,
    DbSession,
    Limiter,
    Permit,
    SettingsDep,
    VerifiedEmail,
)
from api.principal.errors import (
    AccountRequired,
    EmailVerificationRequired,
    Forbidden,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.principal.roles import Permission
from api.ratelimit import count_invitation

router = APIRouter(prefix="/web/users", tags=["users"])
# A path of its own: under /web/users, 'sessions' would also name a user.
member_sessions_router = APIRouter(prefix="/web/member-sessions", tags=["users"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal, Forbidden)


@router.post(
    "",
    status_code=201,
    response_model=UserResponse,
    dependencies=[Permit(Permission.USERS_WRITE), VerifiedEmail, AccountThrottle(INVITATION)],
    responses=error_responses(
        *_AUTH,
        EmailVerificationRequired,
        RateLimited,
        EmailInUse,
        InviteRefusedWithSso,
        ProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def invite_user(
    body: UserCreate,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    audit: Audit,
    settings: SettingsDep,
    limiter: Limiter,
    pool_users: PoolUsers,
) -> UserResponse:
    """Invite a user with a role (Owners and Admins; only Owners invite Owners); Cognito
    emails them a temporary password to sign in with. They are Pending until they do."""
    validity = timedelta(days=settings.membership.invitation_validity_days)
    count_email = functools.partial(count_invitation, limiter, settings)
    user = await service.invite(
        db=db,
        cognito=cognito,
        caller=caller,
        audit=audit,
        body=body,
        validity=validity,
        count_email=count_email,
        pool_users=pool_users,
    )
    return UserResponse(user=user)


@router.put(
    "/{user_id}",
    response_model=UserResponse,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(
        *_AUTH, NotFound, CannotChangeOwnRole, LastOwnerRequired, RequestValidationFailed
    ),
)
async def update_user(
    user_id: uuid.UUID, body: UserUpdate, caller: CurrentUser, db: DbSession, audit: Audit
) -> UserResponse:
    """Change a user's first and last name, and their role when ``role`` is given (the email
    is not editable). Only Owners change Owners or make Owners."""
    return UserResponse(
        user=await service.update(db=db, caller=caller, audit=audit, user_id=user_id, body=body)
    )


@router.delete(
    "/{user_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(
        *_AUTH,
        NotFound,
        CannotDeleteSelf,
        LastUserRequired,
        LastOwnerRequired,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def delete_user(
    user_id: uuid.UUID,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    audit: Audit,
    settings: SettingsDep,
    keep_access_tokens: Annotated[
        bool,
        Query(
            alias="keepAccessTokens",
            description="Keep the access tokens the user made (an Owner's choice); by "
            "default they are revoked with the removal.",
        ),
    ] = False,
) -> Response:
    """Remove a user from the account and from Cognito; the removal sticks (they cannot
    auto-join again until invited). The access tokens they made are revoked, unless an Owner
    keeps them (``keepAccessTokens=true``)."""
    await service.delete(
        db=db,
        cognito=cognito,
        caller=caller,
        audit=audit,
        user_id=user_id,
        keep_access_tokens=keep_access_tokens,
    )
    return Response(status_code=204)


@router.post(
    "/{user_id}/invitation",
    response_model=UserResponse,
    dependencies=[Permit(Permission.USERS_WRITE), VerifiedEmail, AccountThrottle(INVITATION)],
    responses=error_responses(
        *_AUTH,
        EmailVerificationRequired,
        RateLimited,
        NotFound,
        InvitationNotPending,
        ProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def resend_invitation(
    user_id: uuid.UUID,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    audit: Audit,
    settings: SettingsDep,
    limiter: Limiter,
) -> UserResponse:
    """Send a Pending or Expired invitation again with a new temporary password (the old one
    stops working); it is Pending again for the invitation validity."""
    validity = timedelta(days=settings.membership.invitation_validity_days)
    count_email = functools.partial(count_invitation, limiter, settings)
    user = await service.resend_invitation(
        db=db,
        cognito=cognito,
        caller=caller,
        audit=audit,
        user_id=user_id,
        validity=validity,
        count_email=count_email,
    )
    return UserResponse(user=user)


@router.delete(
    "/{user_id}/invitation",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(
        *_AUTH,
        NotFound,
        InvitationNotPending,
        CannotDeleteSelf,
        LastUserRequired,
        LastOwnerRequired,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def revoke_invitation(
    user_id: uuid.UUID, caller: CurrentUser, db: DbSession, cognito: Cognito, audit: Audit
) -> Response:
    """Withdraw a Pending or Expired invitation: the user is removed from Cognito and the
    account."""
    await service.revoke_invitation(
        db=db, cognito=cognito, caller=caller, audit=audit, user_id=user_id
    )
    return Response(status_code=204)


@member_sessions_router.get(
    "",
    response_model=MemberSessionsResponse,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(*_AUTH),
)
async def list_member_sessions(caller: CurrentUser, db: DbSession) -> MemberSessionsResponse:
    """How many live sign-in sessions each user of the account has (Owners and Admins)."""
    return await service.member_sessions(db, caller)


@member_sessions_router.delete(
    "/{user_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(*_AUTH, NotFound, RequestValidationFailed),
)
async def end_member_sessions(
    user_id: uuid.UUID, caller: CurrentUser, db: DbSession, audit: Audit
) -> Response:
    """Sign a user out everywhere: each of their sessions ends at once, refresh included;
    they may sign in again. An Admin cannot sign an Owner out."""
    await service.end_member_sessions(db=db, caller=caller, audit=audit, user_id=user_id)
    return Response(status_code=204)
