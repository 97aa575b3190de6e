"""Passkey routes (README "Passkeys"): the signed-in person's own passkeys. A person's own
operations: an access token may not use them."""

from __future__ import annotations

from fastapi import APIRouter, Response

from api.identity.mfa.errors import TwoStepCodeRequired, TwoStepCodeUsed
from api.identity.passkeys import service
from api.identity.passkeys.errors import (
    PasskeyNameTaken,
    PasskeyNotFound,
    PasskeyRefused,
    PasskeysUnavailable,
)
from api.identity.passkeys.schemas import (
    NewPasskey,
    PasskeyCreationOptions,
    PasskeyRegistrationStart,
    PasskeyRename,
    PasskeyResponse,
    PasskeysResponse,
)
from api.kernel.errors import (
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.principal.dependencies import (
    Audit,
    Claims,
    Cognito,
    CurrentUser,
    DbSession,
    OptionalAccessToken,
    PasswordAttemptsDep,
    Permit,
)
from api.principal.errors import AccountRequired, NotAuthenticated, SignInPolicyRefusal
from api.principal.roles import Permission

router = APIRouter(prefix="/web/passkeys", tags=["passkeys"])
# A path of its own: under /web/passkeys, 'registration' would also name a passkey (PATCH and
# DELETE /web/passkeys/{passkey_id} match it, and an OPTIONS would advertise them).
registration_router = APIRouter(prefix="/web/passkey-registration", tags=["passkeys"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal)
_COGNITO = (ProviderRefused, VendorUnavailable)

# ``token`` in each route is the bearer token CurrentUser just verified: Cognito's passkey
# operations take the person's own access token.


@router.get(
    "",
    response_model=PasskeysResponse,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(*_AUTH, *_COGNITO),
)
async def list_passkeys(
    caller: CurrentUser, claims: Claims, db: DbSession, cognito: Cognito, token: OptionalAccessToken
) -> PasskeysResponse:
    """The signed-in user's passkeys, oldest first."""
    passkeys = await service.list_passkeys(
        db=db, cognito=cognito, identity_sub=claims.sub, access_token=token or ""
    )
    return PasskeysResponse(passkeys=passkeys)


@registration_router.post(
    "",
    response_model=PasskeyCreationOptions,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(
        *_AUTH,
        *_COGNITO,
        PasskeysUnavailable,
        PasskeyRefused,
        TwoStepCodeRequired,
        TwoStepCodeUsed,
        RateLimited,
        RequestValidationFailed,
    ),
)
async def start_passkey_registration(
    body: PasskeyRegistrationStart,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    attempts: PasswordAttemptsDep,
    token: OptionalAccessToken,
) -> PasskeyCreationOptions:
    """Start adding a passkey, with a recent sign-in (the password, and the authenticator
    app's code when two-step sign-in is on): the options for ``navigator.credentials.create``.
    Then send its result to ``POST /web/passkeys``."""
    options = await service.start_registration(
        db=db,
        cognito=cognito,
        attempts=attempts,
        caller=caller,
        access_token=token or "",
        password=body.password,
        code=body.code,
    )
    return PasskeyCreationOptions(options=options)


@router.post(
    "",
    status_code=201,
    response_model=PasskeyResponse,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(
        *_AUTH,
        *_COGNITO,
        PasskeysUnavailable,
        PasskeyNameTaken,
        PasskeyRefused,
        RequestValidationFailed,
    ),
)
async def add_passkey(
    body: NewPasskey,
    caller: CurrentUser,
    claims: Claims,
    db: DbSession,
    cognito: Cognito,
    audit: Audit,
    token: OptionalAccessToken,
) -> PasskeyResponse:
    """Add the passkey the browser just made (the registration started by ``POST
    /web/passkey-registration``) under a name."""
    passkey = await service.complete_registration(
        db=db,
        cognito=cognito,
        audit=audit,
        caller=caller,
        identity_sub=claims.sub,
        access_token=token or "",
        credential=body.credential,
        name=body.name,
    )
    return PasskeyResponse(passkey=passkey)


@router.patch(
    "/{passkey_id}",
    response_model=PasskeyResponse,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(
        *_AUTH, *_COGNITO, PasskeyNotFound, PasskeyNameTaken, RequestValidationFailed
    ),
)
async def rename_passkey(
    passkey_id: str,
    body: PasskeyRename,
    caller: CurrentUser,
    claims: Claims,
    db: DbSession,
    cognito: Cognito,
    token: OptionalAccessToken,
) -> PasskeyResponse:
    """Rename one of the signed-in user's passkeys."""
    passkey = await service.rename(
        db=db,
        cognito=cognito,
        identity_sub=claims.sub,
        access_token=token or "",
        credential_id=passkey_id,
        name=body.name,
    )
    return PasskeyResponse(passkey=passkey)


@router.delete(
    "/{passkey_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.SELF)],
    responses=error_responses(*_AUTH, *_COGNITO, PasskeyNotFound, RequestValidationFailed),
)
async def remove_passkey(
    passkey_id: str,
    caller: CurrentUser,
    claims: Claims,
    db: DbSession,
    cognito: Cognito,
    audit: Audit,
    token: OptionalAccessToken,
) -> Response:
    """Remove one of the signed-in user's passkeys: it no longer signs in."""
    await service.remove(
        db=db,
        cognito=cognito,
        audit=audit,
        caller=caller,
        identity_sub=claims.sub,
        access_token=token or "",
        credential_id=passkey_id,
    )
    return Response(status_code=204)
