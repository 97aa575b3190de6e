"""Usage alerts (README "Usage alerts and export"): at 50 %, 80 % and 100 % of the current
allowance (free or paid), each at most once per billing cycle, an email to every user of the
account who receives them.

The crossing is detected in the metering intake's transaction (``repository.record_crossings``:
an insert that the ``usage_alert`` primary key makes happen once, even with concurrent batches
on several replicas). The emails are deferred to the job engine in that same transaction
(api/kernel/deferred.py, one job per recipient): a batch rolled back sends nothing, a committed one
always sends, and the intake does not wait on SMTP. The worker retries a failed send with a
backoff (README "Background work"); every attempt of one recipient's alert carries the same
``Message-ID`` (:func:`message_key`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from api.kernel.deferred import Email, defer_emails, recipient_tag
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


def message_key(account_id: uuid.UUID, cycle_start: datetime, threshold: int, to: str) -> str:
    """The ``Message-ID`` key of the alert of ``threshold`` percent in the cycle starting at
    ``cycle_start`` to ``to``: ``usage-alert.<account>.<cycle start, epoch s>.<threshold>.
    <recipient tag>`` (one alert per account, cycle, threshold and recipient)."""
    cycle = int(cycle_start.timestamp())
    return f"usage-alert.{account_id}.{cycle}.{threshold}.{recipient_tag(to)}"


async def check(
    db: AsyncSession,
    account_id: uuid.UUID,
    cycle_start: datetime,
) -> list[Crossing]:
    """Record the thresholds the current cycle (starting at ``cycle_start``) has newly reached
    and defer their emails in the same transaction (one job per recipient). Returns the
    crossings."""
    crossings = await repository.record_crossings(db, account_id, cycle_start)
    if not crossings:
        return []
    name, emails = await repository.alert_recipients(db, account_id)
    resets_at = reset_date(cycle_start)
    messages: list[Email] = []
    for crossing in crossings:
        notice = UsageAlertNotice(
            account_name=name,
            threshold=crossing.threshold,
            used=crossing.used,
            allowance=crossing.allowance,
            resets_at=resets_at,
            recipients=tuple(emails),
        )
        messages.extend(
            Email(
                to=to,
                subject=notice.subject,
                text=notice.text,
                message_key=message_key(account_id, cycle_start, crossing.threshold, to),
            )
            for to in notice.recipients
        )
    await defer_emails(db, messages)
    return crossings
