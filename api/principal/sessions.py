"""Ending a user's sessions and remembering whom an account removed: the two writes behind
the sign-in policy that ``api.principal.principal`` checks on every request (README "Security
model"). Domains call these in their own transaction, so the change and the end of the
sessions it implies commit together.
"""

from __future__ import annotations

import uuid

from sqlalchemy import ColumnElement, delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import EndReason, RemovedIdentity, SignInSession, User

# Whole seconds, as a token's ``iat``: tokens issued in the second of the change still count,
# so a sign-in that follows the change in the same request (a password reset) keeps its own
# tokens. An access token issued before is refused from the next request on.
_NOW_S = func.date_trunc("second", func.now())


async def expire_access_tokens(db: AsyncSession, *where: ColumnElement[bool]) -> None:
    """Refuse every access token issued before now of the users matching ``where``
    (``tokens_valid_after``), their sessions going on: each browser's next refresh gets a token
    the policy judges afresh (a role change)."""
    await db.execute(update(User).where(*where).values(tokens_valid_after=_NOW_S))


async def end_sessions(
    db: AsyncSession, *where: ColumnElement[bool], reason: EndReason = EndReason.SECURITY_CHANGE
) -> None:
    """End every session of the users matching ``where``: their recorded sign-in sessions
    (README "Sessions": every token of each, refreshed or not, is refused from now on, refresh
    included; the Sessions page shows them no more) and every access token issued before now
    (:func:`expire_access_tokens`, for the sign-ins the console has no session of)."""
    await expire_access_tokens(db, *where)
    subs = select(User.identity_sub).where(*where, User.identity_sub.is_not(None))
    await db.execute(
        update(SignInSession)
        .where(SignInSession.identity_sub.in_(subs), SignInSession.ended_at.is_(None))
        .values(ended_at=func.now(), ended_reason=reason)
        .execution_options(synchronize_session=False)
    )


async def record_removal(
    db: AsyncSession,
    user: User,
    *,
    provider: str | None = None,
    provider_subject: str | None = None,
) -> None:
    """Remember that ``user`` was removed from their account: by email, by the pool user
    they signed in as (``identity_sub``: their remaining tokens get a clear refusal), and for
    a federated identity by the provider's own user id (``provider``, ``provider_subject``),
    which outlives the pool user."""
    db.add(
        RemovedIdentity(
            account_id=user.account_id,
            email=user.email.lower(),
            identity_sub=user.identity_sub,
            provider=provider,
            provider_subject=provider_subject,
        )
    )


async def lift_removal(db: AsyncSession, account_id: uuid.UUID, email: str) -> None:
    """Forget the removals of ``email`` from the account (an Owner or Admin invites them
    again)."""
    await db.execute(
        delete(RemovedIdentity).where(
            RemovedIdentity.account_id == account_id, RemovedIdentity.email == email.lower()
        )
    )


async def was_removed(
    db: AsyncSession,
    account_id: uuid.UUID,
    email: str,
    *,
    provider: str | None,
    provider_subject: str | None,
) -> bool:
    """Whether the account removed this person: the same email, or the same identity at the
    same provider."""
    same_identity = (
        (RemovedIdentity.provider == provider)
        & (RemovedIdentity.provider_subject == provider_subject)
        if provider and provider_subject
        else None
    )
    matches = RemovedIdentity.email == email.lower()
    if same_identity is not None:
        matches = or_(matches, same_identity)
    removed = await db.scalar(
        select(exists().where(RemovedIdentity.account_id == account_id, matches))
    )
    return bool(removed)
