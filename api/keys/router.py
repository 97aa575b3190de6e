"""API key routes (README "API keys"): list (masked), roll with an overlap, reveal or copy
(recorded), expire now."""

import uuid

from fastapi import APIRouter

from api.kernel.errors import NotFound, RateLimited, RequestValidationFailed, error_responses
from api.keys import service
from api.keys.errors import LastApiKey
from api.keys.schemas import (
    ApiKeysResponse,
    ApiKeyUpdate,
    RevealedKey,
    RevealRequest,
    RollRequest,
)
from api.keys.throttles import API_KEY
from api.principal.dependencies import (
    AccountThrottle,
    Audit,
    CurrentUser,
    DbSession,
    KeyRingDep,
    Permit,
)
from api.principal.errors import AccountRequired, Forbidden, NotAuthenticated, SignInPolicyRefusal
from api.principal.roles import Permission

router = APIRouter(prefix="/web/api-keys", tags=["api keys"])


@router.get(
    "",
    response_model=ApiKeysResponse,
    responses=error_responses(NotAuthenticated, AccountRequired, SignInPolicyRefusal),
    dependencies=[Permit(Permission.API_KEYS_READ)],
)
async def list_keys(caller: CurrentUser, db: DbSession) -> ApiKeysResponse:
    """The account's working API keys, newest (current) first, masked."""
    return await service.list_keys(db=db, account_id=caller.account_id)


@router.post(
    "/roll",
    response_model=ApiKeysResponse,
    dependencies=[Permit(Permission.API_KEYS_WRITE), AccountThrottle(API_KEY)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        RateLimited,
        RequestValidationFailed,
    ),
)
async def roll_key(
    body: RollRequest, caller: CurrentUser, db: DbSession, ring: KeyRingDep, audit: Audit
) -> ApiKeysResponse:
    """Make a new key (Owners and Admins); the current one keeps working for the chosen
    overlap. The new key's monthly limit: the body's, else the current key's."""
    return await service.roll(db=db, ring=ring, caller=caller, audit=audit, request=body)


@router.patch(
    # A UUID only: /web/api-keys/roll is not a key (PATCH there is 405, as for any other path).
    "/{key_id:uuid}",
    response_model=ApiKeysResponse,
    dependencies=[Permit(Permission.API_KEYS_WRITE)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        NotFound,
        RequestValidationFailed,
    ),
)
async def update_key(
    key_id: uuid.UUID, body: ApiKeyUpdate, caller: CurrentUser, db: DbSession, audit: Audit
) -> ApiKeysResponse:
    """Set a working key's monthly limit of requests, or none (Owners and Admins; README "API
    keys")."""
    return await service.set_monthly_limit(
        db=db, caller=caller, audit=audit, key_id=key_id, limit=body.monthly_limit
    )


@router.post(
    "/{key_id}/reveal",
    response_model=RevealedKey,
    dependencies=[Permit(Permission.API_KEYS_READ), AccountThrottle(API_KEY)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        NotFound,
        RateLimited,
        RequestValidationFailed,
    ),
)
async def reveal_key(
    key_id: uuid.UUID,
    body: RevealRequest,
    caller: CurrentUser,
    db: DbSession,
    ring: KeyRingDep,
    audit: Audit,
) -> RevealedKey:
    """The key itself, to show or to copy (any role: Members copy the key); recorded in the
    audit log either way."""
    return await service.reveal(
        db=db, ring=ring, caller=caller, audit=audit, key_id=key_id, purpose=body.purpose
    )


@router.post(
    "/{key_id}/expire",
    response_model=ApiKeysResponse,
    dependencies=[Permit(Permission.API_KEYS_WRITE)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        NotFound,
        LastApiKey,
        RequestValidationFailed,
    ),
)
async def expire_key(
    key_id: uuid.UUID, caller: CurrentUser, db: DbSession, audit: Audit
) -> ApiKeysResponse:
    """Stop a key working now (not the only one; Owners and Admins)."""
    return await service.expire_now(db=db, caller=caller, audit=audit, key_id=key_id)
