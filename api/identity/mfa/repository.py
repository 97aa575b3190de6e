"""Queries of two-step sign-in: a user's state and recovery codes, keyed by the user (the
caller's own, or one found in the caller's account by the service, or the one a sign-in
names)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Account, RecoveryCode, TwoStepChallenge, User


async def user_and_requirement(
    db: AsyncSession, where: ColumnElement[bool], *, lock: bool = True
) -> tuple[User, datetime | None] | None:
    """The user matching ``where`` and since when their account requires two-step sign-in
    (None: it does not); None when no user matches. With ``lock`` the user's row stays locked
    to the end of the transaction, so two changes of one user's two-step sign-in run one
    after the other. The lock is ``FOR NO KEY UPDATE`` (no change here touches the user's
    key): the code guard's rows referring to the user (api/identity/mfa/guard.py, written on
    another connection meanwhile) need ``FOR KEY SHARE``, which ``FOR UPDATE`` would block
    until this transaction ends, that is for ever."""
    query = (
        select(User, Account.two_step_required_at)
        .join(Account, Account.id == User.account_id)
        .where(where)
    )
    locked = query.with_for_update(of=User, key_share=True)
    row = (await db.execute(locked if lock else query)).first()
    return None if row is None else (row[0], row[1])


async def codes_left(db: AsyncSession, user_id: uuid.UUID) -> int:
    """How many of the user's recovery codes are unused."""
    count = await db.scalar(
        select(func.count())
        .select_from(RecoveryCode)
        .where(RecoveryCode.user_id == user_id, RecoveryCode.used_at.is_(None))
    )
    return int(count or 0)


async def replace_codes(db: AsyncSession, user_id: uuid.UUID, hashes: Sequence[str]) -> None:
    """Make ``hashes`` the user's recovery codes: the previous set stops working."""
    await delete_codes(db, user_id)
    await db.execute(insert(RecoveryCode), [{"user_id": user_id, "code_hash": h} for h in hashes])


async def delete_codes(db: AsyncSession, user_id: uuid.UUID) -> None:
    """Remove every recovery code of the user."""
    await db.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user_id))


async def unused_codes(db: AsyncSession, user_id: uuid.UUID) -> list[tuple[uuid.UUID, str]]:
    """``(id, hash)`` of the user's unused recovery codes."""
    rows = await db.execute(
        select(RecoveryCode.id, RecoveryCode.code_hash).where(
            RecoveryCode.user_id == user_id, RecoveryCode.used_at.is_(None)
        )
    )
    return [(row[0], row[1]) for row in rows]


async def use_code(db: AsyncSession, code_id: uuid.UUID) -> bool:
    """Mark the recovery code used, if it was not yet (one statement: of two sign-ins with
    the same code, the second waits for the first and then finds it used)."""
    used = await db.scalar(
        update(RecoveryCode)
        .where(RecoveryCode.id == code_id, RecoveryCode.used_at.is_(None))
        .values(used_at=func.now())
        .returning(RecoveryCode.id)
    )
    return used is not None


async def set_requirement(db: AsyncSession, account_id: uuid.UUID, required: bool) -> bool:
    """Require two-step sign-in of the account's password users from now on, or stop; returns
    whether it was required before (the row stays locked to the end of the transaction)."""
    before = await db.scalar(
        select(Account.two_step_required_at).where(Account.id == account_id).with_for_update()
    )
    if required and before is None:
        await db.execute(
            update(Account).where(Account.id == account_id).values(two_step_required_at=func.now())
        )
    elif not required:
        await db.execute(
            update(Account).where(Account.id == account_id).values(two_step_required_at=None)
        )
    return before is not None


async def hold_challenge(
    db: AsyncSession, session_digest: str, identity_id: str, expires_at: datetime
) -> None:
    """Record that the user of the Cognito username ``identity_id`` opened the challenge of
    ``session_digest`` (valid until ``expires_at``); expired records go. No user of that
    username: nothing is recorded."""
    await db.execute(delete(TwoStepChallenge).where(TwoStepChallenge.expires_at <= func.now()))
    user_id = await db.scalar(select(User.id).where(User.identity_id == identity_id))
    if user_id is None:
        return
    await db.execute(
        pg_insert(TwoStepChallenge)
        .values(session_digest=session_digest, user_id=user_id, expires_at=expires_at)
        .on_conflict_do_nothing()
    )


async def challenge_user(db: AsyncSession, session_digest: str) -> User | None:
    """The user who opened the unexpired challenge of ``session_digest``, if any."""
    found: User | None = await db.scalar(
        select(User)
        .join(TwoStepChallenge, TwoStepChallenge.user_id == User.id)
        .where(
            TwoStepChallenge.session_digest == session_digest,
            TwoStepChallenge.expires_at > func.now(),
        )
    )
    return found
