"""Access token management (README "Automation"): ``/web/access-tokens``. Owners and Admins
list, create (the secret shown once) and revoke; an Owner turns the account's tokens on or
off. A signed-in person's operations: an access token may not manage access tokens."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from fastapi import APIRouter, Response

from api.identity.access_tokens import service
from api.identity.access_tokens.errors import (
    AccessTokenNameTaken,
    AccessTokensTurnedOff,
    ExpiryOutOfRange,
    ScopeBeyondRole,
    TooManyAccessTokens,
)
from api.identity.access_tokens.schemas import (
    AccessTokenCreated,
    AccessTokenPolicy,
    AccessTokens,
    NewAccessToken,
)
from api.kernel.errors import NotFound, RequestValidationFailed, error_responses
from api.principal.dependencies import Audit, CurrentUser, DbSession, Permit, VerifiedEmail
from api.principal.errors import (
    AccountRequired,
    EmailVerificationRequired,
    Forbidden,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.principal.roles import Permission

router = APIRouter(prefix="/web/access-tokens", tags=["users"])
# A path of its own: under /web/access-tokens, 'policy' would also name a token (DELETE
# /web/access-tokens/{token_id} matches it, and an OPTIONS would advertise that DELETE).
policy_router = APIRouter(prefix="/web/access-token-policy", tags=["users"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal, Forbidden)


@router.get(
    "",
    response_model=AccessTokens,
    dependencies=[Permit(Permission.ACCESS_TOKENS_READ)],
    responses=error_responses(*_AUTH),
)
async def list_access_tokens(caller: CurrentUser, db: DbSession) -> AccessTokens:
    """The account's access tokens, newest first, revoked and expired ones included, and
    whether tokens are turned on (Owners and Admins)."""
    return await service.list_tokens(db, caller.account_id, datetime.now(UTC))


@router.post(
    "",
    status_code=201,
    response_model=AccessTokenCreated,
    dependencies=[Permit(Permission.ACCESS_TOKENS_WRITE), VerifiedEmail],
    responses=error_responses(
        *_AUTH,
        EmailVerificationRequired,
        ScopeBeyondRole,
        ExpiryOutOfRange,
        AccessTokensTurnedOff,
        TooManyAccessTokens,
        AccessTokenNameTaken,
        RequestValidationFailed,
    ),
)
async def create_access_token(
    body: NewAccessToken, caller: CurrentUser, db: DbSession, audit: Audit
) -> AccessTokenCreated:
    """Create an access token (Owners and Admins) with scopes within the creator's role: the
    response is the only time its secret is shown."""
    return await service.create(
        db=db, caller=caller, audit=audit, request=body, now=datetime.now(UTC)
    )


@router.delete(
    "/{token_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.ACCESS_TOKENS_WRITE)],
    responses=error_responses(*_AUTH, NotFound, RequestValidationFailed),
)
async def revoke_access_token(
    token_id: uuid.UUID, caller: CurrentUser, db: DbSession, audit: Audit
) -> Response:
    """Revoke an access token: its next request is refused (401 ``AccessTokenRevoked``)."""
    await service.revoke(
        db=db, caller=caller, audit=audit, token_id=token_id, now=datetime.now(UTC)
    )
    return Response(status_code=204)


@policy_router.put(
    "",
    response_model=AccessTokenPolicy,
    dependencies=[Permit(Permission.SIGN_IN_POLICY_WRITE)],
    responses=error_responses(*_AUTH, RequestValidationFailed),
)
async def set_access_token_policy(
    body: AccessTokenPolicy, caller: CurrentUser, db: DbSession, audit: Audit
) -> AccessTokenPolicy:
    """Turn the account's access tokens on or off (Owners): off, every token is refused at
    once (401 ``AccessTokensDisabled``) and none can be created, until turned on again."""
    await service.set_enabled(db=db, caller=caller, audit=audit, enabled=body.enabled)
    return body
