"""Work deferred to the job engine inside the caller's own transaction (README "Background work").

A job is a row of procrastinate's ``procrastinate_jobs`` table (migrations/sql/), inserted here
through procrastinate's own ``procrastinate_defer_jobs_v1`` function on the connection of the
request's (or the pass's) ``AsyncSession``: the job commits with the change that causes it, or
vanishes with it on a rollback, and its insert trigger's ``NOTIFY`` reaches the workers only at
that commit. procrastinate's ``App.defer_async`` would open a connection of its own (psycopg),
outside the transaction; its SQLAlchemy connector is synchronous (psycopg2), and the console
runs on asyncpg, hence this insert of a few lines.

The worker (``python -m api.app.commands.worker``, api/app/jobs/) runs the email task named here
and the tasks the features declare beside the code that defers them (a :class:`Task` each, e.g.
the Stripe webhook events, api/billing/webhooks/service.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

EMAIL_TASK = "send_email"
"""The task that sends one :class:`Email` (api/app/jobs/emails.py)."""

EMAIL_QUEUE = "emails"
"""The queue of the email jobs."""


@dataclass(frozen=True, slots=True)
class Email:
    """One plain-text message to one recipient, rendered when the change is made (so a retry
    sends exactly what was announced then).

    ``message_key``: the left part of its ``Message-ID`` (the worker adds ``@`` and the
    domain of ``MAIL_FROM``), derived from what it announces and the recipient, so every
    attempt of the same message carries the same id (RFC 5322 3.6.4).
    """

    to: str
    subject: str
    text: str
    message_key: str


def recipient_tag(email: str) -> str:
    """A short stable tag of a recipient for a ``Message-ID`` (the address itself stays out of
    the header of the other recipients' copies): 16 hex digits of SHA-256 of the lower-cased
    address."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:16]


async def defer(
    db: AsyncSession,
    task_name: str,
    args: Sequence[dict[str, Any]],
    *,
    queue: str,
) -> list[int]:
    """Insert one job of ``task_name`` on ``queue`` per item of ``args`` (its JSON keyword
    arguments) in ``db``'s transaction; returns the job ids (none for no ``args``).

    Raises only what the database raises (the job tables missing: the migration of the job
    engine has not run).
    """
    if not args:
        return []
    rows = []
    params: dict[str, Any] = {"queue": queue, "task": task_name}
    for index, job_args in enumerate(args):
        rows.append(
            "ROW(CAST(:queue AS varchar), CAST(:task AS varchar), 0, NULL, NULL, "
            f"CAST(CAST(:args_{index} AS text) AS jsonb), NULL)"
            "::procrastinate_job_to_defer_v1"
        )
        params[f"args_{index}"] = json.dumps(job_args, separators=(",", ":"))
    statement = text(f"SELECT unnest(procrastinate_defer_jobs_v1(ARRAY[{', '.join(rows)}]))")
    return list(await db.scalars(statement, params))


@dataclass(frozen=True, slots=True)
class Task:
    """A kind of job: the ``name`` the worker runs it by and the ``queue`` its jobs wait on."""

    name: str
    queue: str

    async def defer(
        self, db: AsyncSession, args: Sequence[dict[str, Any]], *, queue: str | None = None
    ) -> list[int]:
        """One job of this task per item of ``args`` in ``db``'s transaction, on its queue
        (or ``queue``); see :func:`defer`. Returns the job ids."""
        return await defer(db, self.name, args, queue=queue or self.queue)


async def defer_emails(
    db: AsyncSession, emails: Sequence[Email], *, queue: str = EMAIL_QUEUE
) -> list[int]:
    """One :data:`EMAIL_TASK` job per email, in ``db``'s transaction (see :func:`defer`): each
    recipient's message is sent, and retried, on its own. Returns the job ids."""
    return await defer(db, EMAIL_TASK, [asdict(email) for email in emails], queue=queue)
