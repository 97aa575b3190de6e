"""Security notices to an account's Owners (README "Roles and invitations", "Security model"):
the one place that tells every Owner when someone changed who may get in or with what power.

The changes that send one: a SCIM token generated, an identity provider connected, replaced or
removed, a sign-in method (an SSO method or two-step sign-in) required, and someone made an
Owner. Each is recorded in the audit log by its own service too; the notice is what reaches an
Owner who is not looking at the Activity page, so an Admin (or a stolen session) cannot
quietly widen its own reach.

Sent by the worker: the messages are deferred to the job engine in the transaction of the change
(``api.kernel.deferred``), so they leave only if the change commits, and are retried while the mail
relay fails. One message per Owner; deactivated Owners and Owners whose invitation is pending are
told too (they are still Owners), removed ones are not (their row is gone).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.kernel.deferred import Email, defer_emails, recipient_tag
from api.models import Account, Role, User


async def notify_owners(
    db: AsyncSession,
    *,
    account_id: uuid.UUID,
    kind: str,
    subject: str,
    what: str,
    actor: str,
) -> list[int]:
    """Defer, in ``db``'s transaction, one notice per Owner of ``account_id``: ``subject`` as
    the subject line, ``what`` (one or two sentences, ending with a full stop) and who did it
    (``actor``: a name and email, or 'Directory sync') in the body. ``kind`` names the change
    in the ``Message-ID`` key (``owner-notice.<kind>.<account>.<epoch ms>.<recipient tag>``),
    so every attempt of one notice carries the same id. Returns the job ids.
    """
    account = await db.get_one(Account, account_id)
    owners = list(
        await db.scalars(
            select(User.email)
            .where(User.account_id == account_id, User.role == Role.OWNER)
            .order_by(User.email)
        )
    )
    moment = int(datetime.now(UTC).timestamp() * 1000)
    text = (
        f"Hello,\n\n{what}\n\nDone by: {actor}\nAccount: {account.name}\n\n"
        "If you expected this, there is nothing to do. If not, open the console's Activity "
        "page to see the change, undo it, and change the role of whoever made it.\n\n"
        f"Every Owner of {account.name} receives this message.\n"
    )
    return await defer_emails(
        db,
        [
            Email(
                to=owner,
                subject=f"{subject} ({account.name})",
                text=text,
                message_key=f"owner-notice.{kind}.{account_id}.{moment}.{recipient_tag(owner)}",
            )
            for owner in owners
        ],
    )
