"""Spend limits (README "Metering intake"): an API key's monthly limit and the account's choice
to stop at its plan's allowance. The intake's counting statement holds a batch to them
(``repository.insert_records``); here is what a refusal does: undone to its savepoint, it
records once per billing cycle and limit that the limit was reached, defers an email to every
user who gets the usage alerts (in the same transaction, as the alerts do: api/usage/alerts.py),
and answers 429 with the limit and when it resets.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NoReturn

from sqlalchemy.ext.asyncio import AsyncSession

from api.kernel.deferred import Email, defer_emails, recipient_tag
from api.principal.api_keys import masked
from api.principal.principal import KeyHolder
from api.usage import repository
from api.usage.cycles import current_cycle_start, reset_date
from api.usage.errors import AllowanceReached, KeyLimitReached, SpendLimitReached
from api.usage.repository import Counted


@dataclass(frozen=True, slots=True)
class LimitNotice:
    """The email saying a limit was reached: the account, which limit (``key``: the key as
    shown, or None for the allowance), its value in requests, and when the cycle resets."""

    account_name: str
    key: str | None
    limit: int
    resets_at: datetime

    @property
    def subject(self) -> str:
        """The subject line."""
        if self.key:
            return f"{self.account_name}: API key {self.key} reached its monthly limit"
        return f"{self.account_name} stopped at its plan allowance"

    @property
    def text(self) -> str:
        """The plain-text body."""
        resets = self.resets_at.strftime("%b %-d, %Y")
        if self.key:
            what = (
                f"API key {self.key} of {self.account_name} reached its monthly limit of "
                f"{self.limit:,} requests. The metering intake refuses its usage until the "
                f"limit resets on {resets} (UTC). To raise or remove the limit, open "
                f"Account Information > Account Configuration in the console."
            )
        else:
            what = (
                f"{self.account_name} used the {self.limit:,} requests its plan allows in this "
                f"billing cycle and is set to stop there: the metering intake refuses its usage "
                f"until the allowance resets on {resets} (UTC). To go on, add units on Billing & "
                f"Subscription, or choose 'Keep running' on Account Information."
            )
        return f"Hello,\n\n{what}\n"


def message_key(
    account_id: uuid.UUID, cycle_start: datetime, scope: str, limit: int, to: str
) -> str:
    """The ``Message-ID`` key of the notice that ``scope`` (a key's id, or ``allowance``)
    reached ``limit`` in the cycle starting at ``cycle_start``, to ``to``: one per account,
    cycle, limit and recipient."""
    cycle = int(cycle_start.timestamp())
    return f"usage-limit.{account_id}.{cycle}.{scope}.{limit}.{recipient_tag(to)}"


async def refuse(
    db: AsyncSession, holder: KeyHolder, counted: Counted, now: datetime | None = None
) -> NoReturn:
    """Answer a batch the counting statement refused (``counted.refused``; its work already
    rolled back to a savepoint): the key's limit when it refused, else the allowance. The first
    refusal at a limit in a cycle records it and defers its emails.

    Raises:
        KeyLimitReached, AllowanceReached: always (429; the transaction still commits).
    """
    now = now or datetime.now(UTC)
    error: type[SpendLimitReached]
    if counted.key_limit_refused is not None and holder.monthly_limit is not None:
        error, cycle, limit = KeyLimitReached, counted.key_limit_refused, holder.monthly_limit
        key: str | None = masked(holder.key_last4)
        newly = await repository.note_key_limit_reached(db, holder.key_id, cycle, limit)
        scope = str(holder.key_id)
    else:
        assert counted.allowance_refused is not None, "a refused batch names its cycle"
        error, cycle, limit = AllowanceReached, counted.allowance_refused, holder.allowance
        key = None
        newly = await repository.note_allowance_reached(db, holder.account_id, cycle, limit)
        scope = "allowance"
    resets_at = reset_date(cycle)
    if newly:
        name, emails = await repository.alert_recipients(db, holder.account_id)
        notice = LimitNotice(name, key, limit, resets_at)
        await defer_emails(
            db,
            [
                Email(
                    to,
                    notice.subject,
                    notice.text,
                    message_key(holder.account_id, cycle, scope, limit, to),
                )
                for to in emails
            ],
        )
    current_end = reset_date(current_cycle_start(holder.billing_cycle_anchor, now))
    when = resets_at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    message = (
        f"API key {key} reached its monthly limit of {limit:,} requests"
        if key
        else f"The account reached its plan allowance of {limit:,} requests and stops at it"
    )
    raise error(
        f"{message}: this batch was not counted. The limit resets at {when}.",
        limit=limit,
        resets_at=resets_at,
        retry_after_s=int((current_end - now).total_seconds()) + 1,
    )
