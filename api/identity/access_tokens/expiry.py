"""Emails about access tokens that expire soon or have expired (README "Automation"): seven
days before a token's expiry, and once it has passed, its creator (while a user of the
account) and the account's Owners are told, once each, by the job worker's periodic task
``access_token_expiry`` (``ACCESS_TOKEN_EXPIRY_CRON``). Each token's emails are deferred in the
transaction that marks it told (``expiry_reminded_at``, ``expiry_notified_at``), so a crash
sends nothing twice and forgets nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.kernel.deferred import Email, defer_emails, recipient_tag
from api.models import AccessToken, Account, Role, User
from api.principal.access_tokens import masked

REMINDER_BEFORE = timedelta(days=7)
"""How long before its expiry a token's creator and Owners are reminded."""


def _email(token: AccessToken, account: str, to: str, *, expired: bool) -> Email:
    when = token.expires_at.strftime("%Y-%m-%d %H:%M UTC")
    if expired:
        subject = f"Access token '{token.name}' has expired"
        what = f"The access token '{token.name}' ({masked(token.last4)}) expired on {when}."
    else:
        subject = f"Access token '{token.name}' expires on {token.expires_at:%Y-%m-%d}"
        what = f"The access token '{token.name}' ({masked(token.last4)}) expires on {when}."
    text = (
        f"Hello,\n\n{what} Scripts that use it are refused from then on. An Owner or Admin "
        "creates a new one on the console's Access tokens page and puts it where the old "
        f"one was.\n\nMade by: {token.created_by_name}\nAccount: {account}\n"
    )
    kind = "expired" if expired else "expiring"
    return Email(
        to=to,
        subject=subject,
        text=text,
        message_key=f"access-token-{kind}.{token.id}.{recipient_tag(to)}",
    )


async def _recipients(db: AsyncSession, token: AccessToken) -> list[str]:
    """The token's creator while a user of its account, and the account's Owners."""
    emails = await db.scalars(
        select(User.email).where(
            User.account_id == token.account_id,
            or_(User.role == Role.OWNER, User.id == token.created_by_user_id),
        )
    )
    return sorted(set(emails))


async def send_expiry_notices(
    sessionmaker: async_sessionmaker[AsyncSession], now: datetime | None = None
) -> int:
    """Defer the reminders and expiry notices due at ``now`` (default: the current time), one
    transaction per token; returns the emails deferred. Revoked tokens get none."""
    moment = now or datetime.now(UTC)
    deferred = 0
    while True:
        async with sessionmaker() as db, db.begin():
            token = await db.scalar(
                select(AccessToken)
                .where(
                    AccessToken.revoked_at.is_(None),
                    or_(
                        (AccessToken.expires_at <= moment)
                        & AccessToken.expiry_notified_at.is_(None),
                        (AccessToken.expires_at <= moment + REMINDER_BEFORE)
                        & (AccessToken.expires_at > moment)
                        & AccessToken.expiry_reminded_at.is_(None),
                    ),
                )
                .order_by(AccessToken.expires_at)
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            if token is None:
                return deferred
            expired = token.expires_at <= moment
            account = await db.get_one(Account, token.account_id)
            recipients = await _recipients(db, token)
            await defer_emails(
                db, [_email(token, account.name, to, expired=expired) for to in recipients]
            )
            if expired:
                token.expiry_notified_at = moment
                token.expiry_reminded_at = token.expiry_reminded_at or moment
            else:
                token.expiry_reminded_at = moment
            deferred += len(recipients)
