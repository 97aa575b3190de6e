"""Two-step sign-in rules (README "Two-step sign-in"): a password user's authenticator app
(Cognito software token MFA: AssociateSoftwareToken, VerifySoftwareToken,
AdminSetUserMFAPreference) and recovery codes; what the sign-in flows ask of it
(api/identity/sign_in/service.py); the guard on every code (api/identity/mfa/guard.py); an account's
requirement and an Owner's or Admin's reset.

The console's record (``user.two_step_enabled_at``) is what counts: every password sign-in
runs through the API, which refuses to hand out tokens Cognito issued without asking for the
code of a user whose two-step sign-in is on here (api/identity/sign_in/service.py). So a token
holder who turns MFA off at Cognito directly (the user's access token may call
SetUserMFAPreference) gains nothing, and the API turns it on again.

Changes span Cognito and our database; each completes or is undone: a Cognito refusal rolls
our writes back, and a Cognito change whose transaction then fails is turned back
(``api.kernel.db.undo_on_rollback``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import uuid
from datetime import UTC, datetime, timedelta

import structlog
from sqlalchemy import ColumnElement, and_, func
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    AuthResult,
    CodeMismatchError,
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    Tokens,
)
from api.audit import AuditAction, AuditTrail, Target
from api.identity.cognito_errors import cognito_errors
from api.identity.membership.owner_notices import notify_owners
from api.identity.mfa import recovery_codes, repository
from api.identity.mfa.errors import (
    CannotResetOwnTwoStepSignIn,
    RecoveryCodeMismatch,
    SetUpTwoStepSignInFirst,
    TwoStepCodeMismatch,
    TwoStepCodeRequired,
    TwoStepSignInAlreadyOn,
    TwoStepSignInOff,
    TwoStepSignInRequiredByAccount,
    TwoStepSignInUnavailable,
)
from api.identity.mfa.guard import CodeGuard
from api.identity.mfa.schemas import TwoStepSignIn
from api.kernel.db import undo_on_rollback
from api.kernel.errors import NotFound
from api.models import User
from api.principal.principal import Caller
from api.principal.roles import require_may_manage
from api.principal.two_step import APPLIES_TO, setup_due
from api.ratelimit import PasswordAttempts

log = structlog.get_logger(__name__)
# How Cognito lists the authenticator (VerifySoftwareToken's FriendlyDeviceName).
DEVICE_NAME = "Authenticator app"
SOFTWARE_TOKEN_MFA = "SOFTWARE_TOKEN_MFA"  # noqa: S105 - a challenge name
# How long the code step knows who opened a challenge: Cognito's longest AuthSessionValidity
# (3 to 15 minutes; the pool's own setting then ends the challenge at Cognito).
CHALLENGE_LIFE_S = 15 * 60


def _target(user: User) -> Target:
    return Target("user", user.id, f"{user.first_name} {user.last_name} <{user.email}>")


def _username(user: User) -> str:
    """The Cognito username of a password user: the pool user made at their registration or
    invitation (two-step sign-in is for them only, so every user here has one).

    Raises: TwoStepSignInUnavailable: no pool user yet (a provisioned single sign-on user).
    """
    if user.identity_id is None:
        raise TwoStepSignInUnavailable()
    return user.identity_id


async def _own(
    db: AsyncSession, caller: Caller, *, lock: bool = True
) -> tuple[User, datetime | None]:
    found = await repository.user_and_requirement(db, User.id == caller.user_id, lock=lock)
    assert found is not None  # the caller's own row: the principal just read it
    return found


async def status(*, db: AsyncSession, caller: Caller) -> TwoStepSignIn:
    """The caller's two-step sign-in as their Two-step sign-in page shows it."""
    user, required_at = await _own(db, caller, lock=False)
    return TwoStepSignIn(
        available=user.auth_type is APPLIES_TO,
        enabled=user.two_step_enabled_at is not None,
        enabled_at=user.two_step_enabled_at,
        required_by_account=required_at is not None,
        setup_due=setup_due(user, required_at),
        recovery_codes_left=await repository.codes_left(db, user.id),
    )


def _settable(user: User, required_at: datetime | None) -> None:
    if user.auth_type is not APPLIES_TO:
        raise TwoStepSignInUnavailable()
    if user.two_step_enabled_at is not None and not setup_due(user, required_at):
        raise TwoStepSignInAlreadyOn()


async def start_setup(
    *, db: AsyncSession, cognito: CognitoClient, caller: Caller, access_token: str
) -> str:
    """A new authenticator-app secret for the caller (AssociateSoftwareToken with their own
    access token); their current authenticator, if any, stays until the set-up is confirmed.

    Raises: TwoStepSignInUnavailable (not a password user), TwoStepSignInAlreadyOn (it is
    on and no new set-up is due), ProviderRefused, VendorUnavailable.
    """
    _settable(*await _own(db, caller))
    async with cognito_errors():
        return await cognito.associate_software_token(access_token)


async def confirm_setup(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    guard: CodeGuard,
    access_token: str,
    code: str,
) -> list[str]:
    """Confirm the new authenticator with a code it shows (VerifySoftwareToken: it replaces
    any earlier one), turn two-step sign-in on at Cognito (AdminSetUserMFAPreference) and
    here, and make ten new recovery codes (any earlier set stops working). A set-up that was
    due is done. Audited (``two_step.enabled``). Cognito is asked first here, so a wrong code
    costs no hashing of recovery codes. The code is then used (``guard``: it cannot sign in
    too), and the count of wrong codes of the user's code step starts again.

    Returns the recovery codes, to be shown once. Raises: TwoStepSignInUnavailable,
    TwoStepSignInAlreadyOn, TwoStepCodeMismatch (a wrong code), TwoStepCodeUsed,
    ProviderRefused, VendorUnavailable.
    """
    user, required_at = await _own(db, caller)
    _settable(user, required_at)
    was_on = user.two_step_enabled_at is not None
    # Cognito first: a wrong code costs no hashing. If our writes then fail, a set-up that
    # turned it on is turned off again at Cognito.
    async with cognito_errors():
        try:
            async with guard.attempt(user.id, code, counts=False):
                await cognito.verify_software_token(access_token, code, DEVICE_NAME)
        except CodeMismatchError as exc:
            raise TwoStepCodeMismatch() from exc
        await cognito.admin_set_software_token_mfa(_username(user), enabled=True)
    if not was_on:
        undo_on_rollback(
            db, functools.partial(_set_mfa_quietly, cognito, _username(user), enabled=False)
        )
    codes = recovery_codes.new_codes()
    await repository.replace_codes(db, user.id, await recovery_codes.hash_codes(codes))
    # Set up again (a due set-up): a new authenticator, no field changes.
    await audit.record(
        AuditAction.TWO_STEP_ENABLED,
        _target(user),
        None if was_on else {"twoStepSignIn": ("Off", "On")},
    )
    user.two_step_enabled_at = datetime.now(UTC)
    user.two_step_reset_at = None
    await db.flush()
    return codes


async def _set_mfa_quietly(cognito: CognitoClient, username: str, *, enabled: bool) -> None:
    """Undo step of a rolled-back change: Cognito's MFA setting back, logged if it fails."""
    try:
        await cognito.admin_set_software_token_mfa(username, enabled=enabled)
    except (CognitoError, CognitoUnavailable):
        log.exception("cognito_undo_failed", username=username)


async def revoke_quietly(cognito: CognitoClient, tokens: Tokens) -> None:
    """Drop a refresh token the API obtained but hands to nobody (a failure is ignored: the
    tokens are not handed out either way)."""
    if tokens.refresh_token:
        with contextlib.suppress(CognitoError, CognitoUnavailable):
            await cognito.revoke_token(tokens.refresh_token)


async def password_auth_with_mfa_on(
    cognito: CognitoClient, username: str, password: str, issued: Tokens
) -> AuthResult:
    """For a user with two-step sign-in on here to whom Cognito's password sign-in issued
    ``issued`` instead of the SOFTWARE_TOKEN_MFA challenge (MFA turned off at Cognito behind
    the console's back, e.g. with the user's access token): revoke them, turn MFA on again at
    Cognito and try the password again. The result should be the challenge; a caller refuses
    tokens.

    Raises: CognitoError, CognitoUnavailable.
    """
    await revoke_quietly(cognito, issued)
    await cognito.admin_set_software_token_mfa(username, enabled=True)
    return await cognito.password_auth(username, password)


async def reauthenticate(
    *,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    user: User,
    password: str,
    code: str | None,
) -> None:
    """Prove the user's sign-in again through Cognito itself, for a change that needs a
    recent sign-in (two-step sign-in's own, adding a passkey): the password
    (AdminInitiateAuth), and when two-step sign-in is on here the authenticator code too
    (the SOFTWARE_TOKEN_MFA challenge; the console keeps no TOTP secret). The tokens this
    yields are revoked. Counted as a sign-in attempt (a wrong password or code is a
    failure), and the code as one of the user's code step (:mod:`api.identity.mfa.guard`: it
    may be locked, and the code works once).

    Raises: TwoStepCodeRequired (two-step sign-in is on and ``code`` is None: nothing was
    tried), TwoStepSignInUnavailable (no pool user), RateLimited (also: the code step is
    locked), TwoStepCodeUsed, ProviderRefused (a wrong password or code, with Cognito's
    message), TwoStepSignInOff (Cognito answers with another challenge than the code's, or
    with tokens although it is on here), VendorUnavailable.
    """
    username = _username(user)
    two_step_on = user.two_step_enabled_at is not None
    if two_step_on and code is None:
        raise TwoStepCodeRequired()
    async with attempts.attempt(username), cognito_errors():
        result = await cognito.password_auth(username, password)
        if result.tokens is not None and two_step_on:
            result = await password_auth_with_mfa_on(cognito, username, password, result.tokens)
        if not two_step_on and result.tokens is not None:
            await revoke_quietly(cognito, result.tokens)
            return
        if code is None or result.challenge is None or result.challenge.name != SOFTWARE_TOKEN_MFA:
            raise TwoStepSignInOff()
        async with code_guard(attempts).attempt(user.id, code):
            answered = await cognito.respond_software_token_mfa(
                username, result.challenge.session, code
            )
    if answered.tokens is not None:
        await revoke_quietly(cognito, answered.tokens)


async def _own_and_on(db: AsyncSession, caller: Caller) -> tuple[User, datetime | None]:
    user, required_at = await _own(db, caller)
    if user.auth_type is not APPLIES_TO:
        raise TwoStepSignInUnavailable()
    if user.two_step_enabled_at is None:
        raise TwoStepSignInOff()
    return user, required_at


async def regenerate_codes(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    caller: Caller,
    audit: AuditTrail,
    password: str,
    code: str,
) -> list[str]:
    """Ten new recovery codes for the caller, after they prove both factors again; the
    earlier set stops working. Audited (``two_step.recovery_codes_regenerated``).

    Raises: TwoStepSignInUnavailable, TwoStepSignInOff, RateLimited, ProviderRefused,
    VendorUnavailable.
    """
    user, _ = await _own_and_on(db, caller)
    await reauthenticate(
        cognito=cognito, attempts=attempts, user=user, password=password, code=code
    )
    codes = recovery_codes.new_codes()
    await repository.replace_codes(db, user.id, await recovery_codes.hash_codes(codes))
    await audit.record(AuditAction.TWO_STEP_RECOVERY_CODES_REGENERATED, _target(user))
    return codes


async def disable(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    caller: Caller,
    audit: AuditTrail,
    password: str,
    code: str,
) -> None:
    """Turn the caller's two-step sign-in off, after they prove both factors again: off at
    Cognito, and its recovery codes gone. Audited (``two_step.disabled``).

    Raises: TwoStepSignInUnavailable, TwoStepSignInOff, TwoStepSignInRequiredByAccount,
    RateLimited, ProviderRefused, VendorUnavailable.
    """
    user, required_at = await _own_and_on(db, caller)
    if required_at is not None:
        raise TwoStepSignInRequiredByAccount()
    await reauthenticate(
        cognito=cognito, attempts=attempts, user=user, password=password, code=code
    )
    await _turn_off(db, cognito, user)
    await audit.record(
        AuditAction.TWO_STEP_DISABLED, _target(user), {"twoStepSignIn": ("On", "Off")}
    )


async def _turn_off(
    db: AsyncSession, cognito: CognitoClient, user: User, *, set_up_again: bool = False
) -> None:
    """Off here (flushed; with ``set_up_again`` a new set-up is due from now) and then at
    Cognito; if the transaction then fails, on again."""
    user.two_step_enabled_at = None
    user.two_step_reset_at = func.now() if set_up_again else None
    await repository.delete_codes(db, user.id)
    await db.flush()
    async with cognito_errors():
        await cognito.admin_set_software_token_mfa(_username(user), enabled=False)
    undo_on_rollback(
        db, functools.partial(_set_mfa_quietly, cognito, _username(user), enabled=True)
    )


# ---------------------------------------------------------------------------------------------
# What the sign-in flows ask (api/identity/sign_in/service.py)


def code_guard(attempts: PasswordAttempts) -> CodeGuard:
    """The guard of the codes a request with these password ``attempts`` checks (the same
    settings and autocommit engine)."""
    return CodeGuard.of(attempts.limiter, attempts.settings)


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


async def hold_challenge(db: AsyncSession, username: str, session: str) -> None:
    """Remember that the password of the user of this Cognito username opened the
    SOFTWARE_TOKEN_MFA challenge of ``session`` (Cognito's opaque session string; only its
    SHA-256 is kept), for :data:`CHALLENGE_LIFE_S`, in the request's transaction."""
    expires_at = datetime.now(UTC) + timedelta(seconds=CHALLENGE_LIFE_S)
    await repository.hold_challenge(db, _digest(session), username, expires_at)


async def challenge_user(db: AsyncSession, session: str) -> User | None:
    """The user whose password opened the challenge of ``session`` (see
    :func:`hold_challenge`); None for a session the API did not hand out, or an expired
    one."""
    return await repository.challenge_user(db, _digest(session))


def _identity(username: str) -> ColumnElement[bool]:
    return User.identity_id == username


async def is_on(db: AsyncSession, username: str) -> bool:
    """Whether the user of this Cognito username has two-step sign-in on here."""
    found = await repository.user_and_requirement(db, _identity(username), lock=False)
    return found is not None and found[0].two_step_enabled_at is not None


async def setup_due_for(db: AsyncSession, username: str) -> bool:
    """Whether the user of this Cognito username must set two-step sign-in up before using
    the console (what a sign-in tells the SPA)."""
    found = await repository.user_and_requirement(db, _identity(username), lock=False)
    return found is not None and setup_due(*found)


async def use_recovery_code(db: AsyncSession, username: str, code: str) -> User:
    """Spend one of the user's unused recovery codes (it works once) and make a new set-up
    due: whoever signs in with a recovery code has lost their authenticator. Returns the user.

    Raises: RecoveryCodeMismatch: no unused code of this user matches (two-step sign-in off,
    a used code, a wrong one).
    """
    found = await repository.user_and_requirement(db, _identity(username))
    if found is None or found[0].two_step_enabled_at is None:
        raise RecoveryCodeMismatch()
    user = found[0]
    code_id = await recovery_codes.find(code, await repository.unused_codes(db, user.id))
    if code_id is None or not await repository.use_code(db, code_id):
        raise RecoveryCodeMismatch()
    return user


async def set_up_again_since(
    db: AsyncSession, user: User, authenticated_at: int, audit: AuditTrail
) -> None:
    """After a sign-in with a recovery code: a new set-up is due from that sign-in on
    (``authenticated_at``, the token's ``auth_time``: Cognito's clock, so the sign-in's own
    tokens may set it up), recorded with the codes left (``two_step.recovery_code_used``)."""
    user.two_step_reset_at = func.to_timestamp(authenticated_at)
    await db.flush()
    await audit.record(
        AuditAction.TWO_STEP_RECOVERY_CODE_USED,
        _target(user),
        {"recoveryCodesLeft": (None, await repository.codes_left(db, user.id))},
    )


# ---------------------------------------------------------------------------------------------
# The account's requirement and an Owner's or Admin's reset


async def set_requirement(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, required: bool
) -> bool:
    """Require (or stop requiring) two-step sign-in of the caller's account's password users.
    From then on, those without it are refused with their current sessions and set it up at
    their next sign-in (``api.principal.two_step``). Audited (``two_step.requirement_changed``).

    A change tells every Owner by email (api/identity/membership/owner_notices.py). Returns whether
    it is
    required now. Raises: SetUpTwoStepSignInFirst (a password user without it requiring it).
    """
    user, _ = await _own(db, caller, lock=False)
    if required and user.auth_type is APPLIES_TO and user.two_step_enabled_at is None:
        raise SetUpTwoStepSignInFirst()
    before = await repository.set_requirement(db, caller.account_id, required)
    if before != required:
        await audit.record(
            AuditAction.TWO_STEP_REQUIREMENT_CHANGED,
            Target("account", caller.account_id, caller.account_name),
            {"requireTwoStepSignIn": (before, required)},
        )
        await notify_owners(
            db,
            account_id=caller.account_id,
            kind="two-step-required" if required else "two-step-not-required",
            subject="Two-step sign-in is now required"
            if required
            else "Two-step sign-in is no longer required",
            what=f"Everyone of {caller.account_name} who signs in with a password now needs "
            "two-step sign-in too; those without it set it up at their next sign-in."
            if required
            else f"The password users of {caller.account_name} may sign in with their password "
            "alone again, unless they keep two-step sign-in on themselves.",
            actor=audit.actor.label,
        )
    return required


async def reset(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    user_id: uuid.UUID,
) -> None:
    """Reset another user's two-step sign-in (they lost their authenticator and their
    recovery codes): off at Cognito and here, their recovery codes gone, every session they
    have ends (their tokens are refused, AdminUserGlobalSignOut revokes the refresh tokens),
    and they set it up again at their next sign-in. Audited (``two_step.reset``).

    Raises:
        NotFound: not a user of the caller's account.
        Forbidden: an Admin resetting an Owner.
        CannotResetOwnTwoStepSignIn: the caller's own.
        TwoStepSignInUnavailable: the user signs in with an identity provider.
        TwoStepSignInOff: it is not on (and no set-up is due).
        VendorUnavailable: Cognito is unreachable (nothing changes).
    """
    found = await repository.user_and_requirement(
        db, and_(User.id == user_id, User.account_id == caller.account_id)
    )
    if found is None:
        raise NotFound("User not found")
    user = found[0]
    require_may_manage(caller.authority, user.role)
    if user.id == caller.user_id:
        raise CannotResetOwnTwoStepSignIn()
    if user.auth_type is not APPLIES_TO:
        raise TwoStepSignInUnavailable(
            f"{user.first_name} {user.last_name} signs in with an identity provider: "
            "two-step sign-in does not apply."
        )
    if user.two_step_enabled_at is None:
        raise TwoStepSignInOff(
            f"{user.first_name} {user.last_name} has no two-step sign-in to reset."
        )
    await audit.record(AuditAction.TWO_STEP_RESET, _target(user), {"twoStepSignIn": ("On", "Off")})
    await _turn_off(db, cognito, user, set_up_again=True)
    async with cognito_errors():
        await cognito.admin_user_global_sign_out(_username(user))
