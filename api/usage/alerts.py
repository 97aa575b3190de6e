"""Usage alerts (README "Usage alerts and export"): at 50 %, 80 % and 100 % of the current
allowance (free or paid), each at most once per billing cycle, an email to every user of the
account who receives them.

The crossing is detected in the metering intake's transaction (``repository.record_crossings``:
an insert that the ``usage_alert`` primary key makes happen once, even with concurrent batches
on several replicas), and the email leaves only after that transaction committed, in the
background, so the intake does not wait on SMTP. A failed send is logged; the alert stays
recorded (it is not retried, so nobody gets it twice).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.mail import Mailer
from api.db import after_commit
from api.usage import repository
from api.usage.cycles import reset_date
from api.usage.repository import Crossing

THRESHOLDS = (50, 80, 100)
"""The percentages of the allowance an alert can be set for (README "Usage alerts and export")."""


@dataclass(frozen=True, slots=True)
class UsageAlertNotice:
    """The email about one crossing: the account, ``used`` of ``allowance`` requests this
    cycle (``threshold`` percent reached), the cycle's reset date, and who gets it."""

    account_name: str
    threshold: int
    used: int
    allowance: int
    resets_at: datetime
    recipients: tuple[str, ...]

    @property
    def subject(self) -> str:
        """The subject line."""
        if self.threshold >= 100:
            return f"{self.account_name} has used its whole plan allowance"
        return f"{self.account_name} has used {self.threshold}% of its plan allowance"

    @property
    def text(self) -> str:
        """The plain-text body."""
        resets = self.resets_at.strftime("%b %-d, %Y")
        return (
            f"Hello,\n\n"
            f"{self.account_name} has used {self.used:,} of the {self.allowance:,} requests its "
            f"plan allows in this billing cycle ({self.threshold}%). The allowance resets on "
            f"{resets} (UTC).\n\n"
            f"To raise it, add units on Billing & Subscription in the console. To change who "
            f"gets these emails, or at which percentages, open Account Information > Usage "
            f"alerts.\n"
        )


async def check(
    db: AsyncSession,
    mailer: Mailer,
    account_id: uuid.UUID,
    cycle_start: datetime,
) -> list[Crossing]:
    """Record the thresholds the current cycle (starting at ``cycle_start``) has newly reached
    and email them once the request's transaction commits. Returns the crossings."""
    crossings = await repository.record_crossings(db, account_id, cycle_start)
    if not crossings:
        return []
    name, emails = await repository.alert_recipients(db, account_id)
    notices = [
        UsageAlertNotice(
            account_name=name,
            threshold=c.threshold,
            used=c.used,
            allowance=c.allowance,
            resets_at=reset_date(cycle_start),
            recipients=tuple(emails),
        )
        for c in crossings
    ]

    async def send_later() -> None:
        _in_background(send(mailer, notices))

    after_commit(db, send_later)
    return crossings


async def send(mailer: Mailer, notices: Sequence[UsageAlertNotice]) -> int:
    """Email each notice to its recipients; returns how many were sent. Never raises."""
    sent = 0
    for notice in notices:
        sent += await mailer.send_each(
            notice.recipients, notice.subject, notice.text, threshold=notice.threshold
        )
    return sent


_background: set[asyncio.Task[Any]] = set()


def _in_background(work: Coroutine[Any, Any, Any]) -> None:
    """Run ``work`` without awaiting it, keeping a reference until it ends (asyncio keeps only
    weak ones)."""
    task = asyncio.create_task(work)
    _background.add(task)
    task.add_done_callback(_background.discard)
