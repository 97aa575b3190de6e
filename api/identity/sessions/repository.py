"""The sessions' reads and writes (``api.identity.sessions.service``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import EndReason, SignInSession, User


async def insert_session(db: AsyncSession, values: dict[str, object]) -> None:
    """Store a new session (``values``: the columns of :class:`SignInSession`); a sign-in
    recorded already (the same ``origin_jti``) stays as it is."""
    await db.execute(
        insert(SignInSession).values(**values).on_conflict_do_nothing(index_elements=["origin_jti"])
    )


async def earlier_sign_ins(
    db: AsyncSession,
    *,
    identity_sub: str,
    origin_jti: str,
    browser: str | None,
    os: str | None,
    client_address: str,
    since: datetime,
) -> tuple[int, bool]:
    """The sessions of ``identity_sub`` but the one of ``origin_jti``: how many, and whether
    one of them with this browser, operating system and address was active since ``since``."""
    same = (
        SignInSession.browser.is_not_distinct_from(browser)
        & SignInSession.os.is_not_distinct_from(os)
        & (SignInSession.client_address == client_address)
        & (SignInSession.last_active_at >= since)
    )
    count, seen = (
        await db.execute(
            select(func.count(), func.coalesce(func.bool_or(same), False)).where(
                SignInSession.identity_sub == identity_sub,
                SignInSession.origin_jti != origin_jti,
            )
        )
    ).one()
    return int(count), bool(seen)


async def email_of(db: AsyncSession, identity_sub: str) -> str | None:
    """The email of the user the pool user ``identity_sub`` is bound to, if any."""
    return await db.scalar(select(User.email).where(User.identity_sub == identity_sub))


async def live_sessions(db: AsyncSession, identity_sub: str) -> Sequence[SignInSession]:
    """The live sessions of the pool user ``identity_sub``, the latest active first."""
    result = await db.scalars(
        select(SignInSession)
        .where(SignInSession.identity_sub == identity_sub, SignInSession.ended_at.is_(None))
        .order_by(SignInSession.last_active_at.desc(), SignInSession.id)
    )
    return result.all()


async def end(
    db: AsyncSession,
    identity_sub: str,
    reason: EndReason,
    *,
    session_id: uuid.UUID | None = None,
    origin_jti: str | None = None,
    keep_origin_jti: str | None = None,
) -> int:
    """End the live sessions of ``identity_sub``: only ``session_id``, or only the one of
    ``origin_jti``, or all but the one of ``keep_origin_jti``, or all; returns how many
    ended."""
    statement = update(SignInSession).where(
        SignInSession.identity_sub == identity_sub, SignInSession.ended_at.is_(None)
    )
    if session_id is not None:
        statement = statement.where(SignInSession.id == session_id)
    if origin_jti is not None:
        statement = statement.where(SignInSession.origin_jti == origin_jti)
    if keep_origin_jti is not None:
        statement = statement.where(SignInSession.origin_jti != keep_origin_jti)
    result = await db.execute(
        statement.values(ended_at=func.now(), ended_reason=reason).execution_options(
            synchronize_session=False
        )
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


async def delete_inactive_before(db: AsyncSession, before: datetime) -> int:
    """Delete the sessions last active before ``before``; returns how many went."""
    result = await db.execute(
        delete(SignInSession)
        .where(SignInSession.last_active_at < before)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]
