"""User Management rules (SPEC 2 "User Management", 5 "Other", 6; issue 5).

Invite and delete span our database and Cognito; each either completes or is undone:
- invite creates the Cognito user (Cognito emails the temporary password), then our row; if
  the request's transaction does not commit, the Cognito user is deleted again
  (``api.db.undo_on_rollback``);
- delete removes our row first (flushed, not committed), then the Cognito user; if Cognito
  fails the request fails and the transaction rolls our delete back.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import string
import uuid

import structlog
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    UserNotFoundError,
)
from api.auth.principal import Caller
from api.cognito_errors import cognito_errors
from api.db import undo_on_rollback
from api.errors import EmailInUse, NotFound
from api.models import Account, AuthType, User
from api.users import repository
from api.users.errors import CannotDeleteSelf, InviteRefusedWithSso, LastUserRequired
from api.users.schemas import AccountUser, UserCreate, UserUpdate

log = structlog.get_logger(__name__)
_SYMBOLS = "!#$%&*+-=?@^_"


async def account_users(db: AsyncSession, account_id: uuid.UUID) -> list[AccountUser]:
    """The users of one account as User Management lists them (SPEC 2), by last name."""
    return [AccountUser.model_validate(u) for u in await repository.list_users(db, account_id)]


def temporary_password(length: int = 16) -> str:
    """A random password meeting the pool policy: 12+ characters, a digit, a symbol (SPEC 9)."""
    alphabet = string.ascii_letters + string.digits + _SYMBOLS
    chars = [secrets.choice(alphabet) for _ in range(length - 3)]
    chars += [secrets.choice(string.digits), secrets.choice(_SYMBOLS)]
    chars += [secrets.choice(string.ascii_lowercase)]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


async def _user_in_account(db: AsyncSession, caller: Caller, user_id: uuid.UUID) -> User:
    user = await db.scalar(
        select(User).where(User.id == user_id, User.account_id == caller.account_id)
    )
    if user is None:
        raise NotFound("User not found")
    return user


async def invite(
    db: AsyncSession, cognito: CognitoClient, caller: Caller, body: UserCreate
) -> AccountUser:
    """Invite a user into the caller's account.

    Raises:
        InviteRefusedWithSso: the account requires Google SSO (SPEC 5 tooltip text).
        EmailInUse: the email belongs to a user of any account (409).
        ProviderRefused / VendorUnavailable: Cognito refused or is unreachable.
    """
    account = await db.get_one(Account, caller.account_id)
    if account.require_google_sso:
        raise InviteRefusedWithSso()
    taken = await db.scalar(select(User.id).where(func.lower(User.email) == body.email))
    if taken is not None:
        raise EmailInUse()
    async with cognito_errors():
        await cognito.admin_create_user(
            body.email,
            {
                "email": body.email,
                "email_verified": "true",
                "given_name": body.first_name,
                "family_name": body.last_name,
            },
            temporary_password=temporary_password(),
        )
    user = User(
        account_id=caller.account_id,
        identity_id=body.email,
        first_name=body.first_name,
        last_name=body.last_name,
        email=body.email,
        auth_type=AuthType.EMAIL,
    )
    # If our write does not commit, the Cognito user goes again, so the email can be retried.
    undo_on_rollback(db, functools.partial(_undo_cognito_user, cognito, body.email))
    db.add(user)
    try:
        await db.flush()
    except IntegrityError as exc:
        raise EmailInUse() from exc  # lost a race with another invite of this email
    return AccountUser.model_validate(user)


async def _undo_cognito_user(cognito: CognitoClient, username: str) -> None:
    try:
        await cognito.admin_delete_user(username)
    except (CognitoError, CognitoUnavailable):
        log.exception("cognito_undo_failed", username=username)


async def update(
    db: AsyncSession, caller: Caller, user_id: uuid.UUID, body: UserUpdate
) -> AccountUser:
    """Rename a user of the caller's account. Raises NotFound for any other user."""
    user = await _user_in_account(db, caller, user_id)
    user.first_name = body.first_name
    user.last_name = body.last_name
    await db.flush()
    return AccountUser.model_validate(user)


async def delete(
    db: AsyncSession, cognito: CognitoClient, caller: Caller, user_id: uuid.UUID
) -> None:
    """Remove a user from the account and from Cognito.

    Raises:
        NotFound: not a user of the caller's account.
        CannotDeleteSelf / LastUserRequired: the account would lose its caller or last user.
        VendorUnavailable: Cognito is unreachable (nothing is deleted).
    """
    user = await _user_in_account(db, caller, user_id)
    if user.id == caller.user_id:
        raise CannotDeleteSelf()
    remaining = await db.scalar(
        select(func.count()).select_from(User).where(User.account_id == caller.account_id)
    )
    if (remaining or 0) <= 1:
        raise LastUserRequired()
    await db.delete(user)
    await db.flush()
    # A user already gone from the pool: our delete still stands.
    async with cognito_errors():
        with contextlib.suppress(UserNotFoundError):
            await cognito.admin_delete_user(user.identity_id)
