"""The passkeys' reads and writes (``api.identity.passkeys.service``): the console's names
and last use, by pool user (``identity_sub``) and credential id."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import Passkey, User


async def user(db: AsyncSession, user_id: uuid.UUID) -> User | None:
    """The user of ``user_id``."""
    return await db.get(User, user_id)


async def rows(db: AsyncSession, identity_sub: str) -> dict[str, Passkey]:
    """The pool user's rows, by credential id."""
    found = await db.scalars(select(Passkey).where(Passkey.identity_sub == identity_sub))
    return {row.credential_id: row for row in found}


async def forget_others(db: AsyncSession, identity_sub: str, keep: Collection[str]) -> None:
    """Delete the pool user's rows of credentials not in ``keep`` (passkeys Cognito no longer
    has: their names are free again)."""
    await db.execute(
        delete(Passkey).where(
            Passkey.identity_sub == identity_sub, Passkey.credential_id.not_in(list(keep))
        )
    )


async def put(
    db: AsyncSession, identity_sub: str, credential_id: str, name: str, created_at: datetime
) -> Passkey:
    """The row of this credential with ``name`` (made with ``created_at``, or renamed)."""
    stored: Passkey | None = await db.scalar(
        insert(Passkey)
        .values(
            identity_sub=identity_sub,
            credential_id=credential_id,
            name=name,
            created_at=created_at,
        )
        .on_conflict_do_update(
            constraint="uq_passkey_identity_sub_credential_id", set_={"name": name}
        )
        .returning(Passkey),
        execution_options={"populate_existing": True},
    )
    assert stored is not None
    return stored


async def remove(db: AsyncSession, identity_sub: str, credential_id: str) -> Passkey | None:
    """Delete the row of this credential; the row deleted, if any."""
    removed: Passkey | None = await db.scalar(
        delete(Passkey)
        .where(Passkey.identity_sub == identity_sub, Passkey.credential_id == credential_id)
        .returning(Passkey)
    )
    return removed


async def added_here(db: AsyncSession, identity_id: str, credential_id: str) -> bool:
    """Whether the user of the Cognito username ``identity_id`` has a row of this
    credential."""
    found = await db.scalar(
        select(Passkey.id)
        .join(User, User.identity_sub == Passkey.identity_sub)
        .where(User.identity_id == identity_id, Passkey.credential_id == credential_id)
    )
    return found is not None


async def mark_used(db: AsyncSession, identity_sub: str, credential_id: str, at: datetime) -> None:
    """Note a sign-in with this credential at ``at`` (a passkey without a row has none)."""
    await db.execute(
        update(Passkey)
        .where(Passkey.identity_sub == identity_sub, Passkey.credential_id == credential_id)
        .values(last_used_at=at)
    )
