"""Two-step sign-in routes (README "Two-step sign-in"): the caller's own authenticator app
and recovery codes. The set-up routes take ``TwoStepCaller``: a user who must set it up
before anything else may call them, and nothing else."""

import uuid

from fastapi import APIRouter, Response

from api.identity.mfa import service
from api.identity.mfa.errors import (
    CannotResetOwnTwoStepSignIn,
    SetUpTwoStepSignInFirst,
    TwoStepCodeMismatch,
    TwoStepCodeUsed,
    TwoStepSignInAlreadyOn,
    TwoStepSignInOff,
    TwoStepSignInRequiredByAccount,
    TwoStepSignInUnavailable,
)
from api.identity.mfa.guard import CodeGuard
from api.identity.mfa.schemas import (
    RecoveryCodesResponse,
    TwoStepReauthentication,
    TwoStepRequirement,
    TwoStepRequirementResponse,
    TwoStepSetup,
    TwoStepSetupConfirm,
    TwoStepSignInResponse,
)
from api.identity.mfa.throttles import TWO_STEP_SETUP
from api.kernel.errors import (
    NotFound,
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.principal.dependencies import (
    Audit,
    Cognito,
    CurrentUser,
    DbSession,
    Limiter,
    OptionalAccessToken,
    PasswordAttemptsDep,
    Permit,
    SettingsDep,
    TwoStepAccountThrottle,
    TwoStepAudit,
    TwoStepCaller,
    TwoStepVerifiedEmail,
)
from api.principal.errors import (
    AccountRequired,
    EmailVerificationRequired,
    Forbidden,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.principal.roles import Permission

router = APIRouter(prefix="/web/two-step-sign-in", tags=["two-step sign-in"])
# An Owner's or Admin's reset of another user's, beside the other User Management routes.
users_router = APIRouter(prefix="/web/users", tags=["two-step sign-in"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal)


@router.get(
    "",
    response_model=TwoStepSignInResponse,
    responses=error_responses(*_AUTH),
    dependencies=[Permit(Permission.SELF)],
)
async def get_two_step_sign_in(caller: TwoStepCaller, db: DbSession) -> TwoStepSignInResponse:
    """The caller's two-step sign-in: whether it applies to them, is on, is required by the
    account or due to be set up, and how many recovery codes are left."""
    return TwoStepSignInResponse(two_step_sign_in=await service.status(db=db, caller=caller))


@router.post(
    "/setup",
    dependencies=[
        Permit(Permission.SELF),
        TwoStepVerifiedEmail,
        TwoStepAccountThrottle(TWO_STEP_SETUP),
    ],
    response_model=TwoStepSetup,
    responses=error_responses(
        *_AUTH,
        EmailVerificationRequired,
        TwoStepSignInUnavailable,
        TwoStepSignInAlreadyOn,
        ProviderRefused,
        RateLimited,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def start_two_step_setup(
    caller: TwoStepCaller, db: DbSession, cognito: Cognito, token: OptionalAccessToken
) -> TwoStepSetup:
    """A new secret for an authenticator app (Cognito AssociateSoftwareToken): show it as
    text and as the QR code of ``otpauth://totp/<issuer>:<email>?secret=<secret>&issuer=
    <issuer>``; confirm with a code the app shows."""
    # ``token`` is the bearer token TwoStepCaller just verified.
    secret = await service.start_setup(
        db=db, cognito=cognito, caller=caller, access_token=token or ""
    )
    return TwoStepSetup(secret_code=secret)


@router.post(
    "/setup/confirm",
    dependencies=[
        Permit(Permission.SELF),
        TwoStepVerifiedEmail,
        TwoStepAccountThrottle(TWO_STEP_SETUP),
    ],
    response_model=RecoveryCodesResponse,
    responses=error_responses(
        *_AUTH,
        EmailVerificationRequired,
        TwoStepSignInUnavailable,
        TwoStepSignInAlreadyOn,
        TwoStepCodeMismatch,
        TwoStepCodeUsed,
        ProviderRefused,
        RateLimited,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def confirm_two_step_setup(
    body: TwoStepSetupConfirm,
    caller: TwoStepCaller,
    db: DbSession,
    cognito: Cognito,
    audit: TwoStepAudit,
    token: OptionalAccessToken,
    limiter: Limiter,
    settings: SettingsDep,
) -> RecoveryCodesResponse:
    """Confirm the new authenticator app with a code it shows: two-step sign-in is on, and
    here are ten recovery codes, shown this once. The code is used: it cannot sign in too."""
    codes = await service.confirm_setup(
        db=db,
        cognito=cognito,
        caller=caller,
        audit=audit,
        guard=CodeGuard.of(limiter, settings),
        access_token=token or "",
        code=body.code,
    )
    return RecoveryCodesResponse(recovery_codes=codes)


_REAUTHENTICATION_ERRORS = (
    *_AUTH,
    TwoStepSignInUnavailable,
    TwoStepSignInOff,
    TwoStepCodeUsed,
    RateLimited,
    ProviderRefused,
    RequestValidationFailed,
    VendorUnavailable,
)


@router.post(
    "/recovery-codes",
    response_model=RecoveryCodesResponse,
    responses=error_responses(*_REAUTHENTICATION_ERRORS),
    dependencies=[Permit(Permission.SELF)],
)
async def regenerate_recovery_codes(
    body: TwoStepReauthentication,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    attempts: PasswordAttemptsDep,
    audit: Audit,
) -> RecoveryCodesResponse:
    """Ten new recovery codes, with the password and a current code; the earlier ones stop
    working."""
    codes = await service.regenerate_codes(
        db=db,
        cognito=cognito,
        attempts=attempts,
        caller=caller,
        audit=audit,
        password=body.password,
        code=body.code,
    )
    return RecoveryCodesResponse(recovery_codes=codes)


@router.post(
    "/disable",
    status_code=204,
    response_class=Response,
    responses=error_responses(*_REAUTHENTICATION_ERRORS, TwoStepSignInRequiredByAccount),
    dependencies=[Permit(Permission.SELF)],
)
async def disable_two_step_sign_in(
    body: TwoStepReauthentication,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    attempts: PasswordAttemptsDep,
    audit: Audit,
) -> Response:
    """Turn two-step sign-in off, with the password and a current code (not while the
    account requires it); its recovery codes stop working."""
    await service.disable(
        db=db,
        cognito=cognito,
        attempts=attempts,
        caller=caller,
        audit=audit,
        password=body.password,
        code=body.code,
    )
    return Response(status_code=204)


@router.put(
    "/requirement",
    response_model=TwoStepRequirementResponse,
    dependencies=[Permit(Permission.SIGN_IN_POLICY_WRITE)],
    responses=error_responses(*_AUTH, Forbidden, SetUpTwoStepSignInFirst, RequestValidationFailed),
)
async def set_two_step_requirement(
    body: TwoStepRequirement, caller: CurrentUser, db: DbSession, audit: Audit
) -> TwoStepRequirementResponse:
    """Require (or stop requiring) two-step sign-in of the account's password users
    (Owners). Those without it lose their sessions and set it up at their next sign-in."""
    required = await service.set_requirement(
        db=db, caller=caller, audit=audit, required=body.required
    )
    return TwoStepRequirementResponse(requirement=TwoStepRequirement(required=required))


@users_router.delete(
    "/{user_id}/two-step-sign-in",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        NotFound,
        CannotResetOwnTwoStepSignIn,
        TwoStepSignInUnavailable,
        TwoStepSignInOff,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def reset_two_step_sign_in(
    user_id: uuid.UUID, caller: CurrentUser, db: DbSession, cognito: Cognito, audit: Audit
) -> Response:
    """Reset a user's two-step sign-in (Owners and Admins; only Owners reset Owners): it is
    off, their sessions end, and they set it up again at their next sign-in."""
    await service.reset(db=db, cognito=cognito, caller=caller, audit=audit, user_id=user_id)
    return Response(status_code=204)
