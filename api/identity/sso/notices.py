"""The email the account's users get when one of its domains loses verification (README "Verified
domains").

Sent over SMTP (api/adapters/mail.py, the console's own sender; Cognito only sends its own
messages), one message per user, by the worker: the emails are deferred to the job engine in
the transaction that makes the domain Lost (api/kernel/deferred.py), so they leave once that commits
and are retried with a backoff while the relay fails (README "Background work"). Auto-join
stopped either way.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from api.identity.sso.verification import failure_message, record_value
from api.kernel.deferred import Email, defer_emails, recipient_tag
from api.models import DomainFailure


@dataclass(frozen=True, slots=True)
class DomainLostNotice:
    """Who to tell that ``domain`` (the row ``domain_id``) of ``account_name`` lost verification
    at ``lost_at``, and why."""

    domain_id: uuid.UUID
    lost_at: datetime
    account_name: str
    domain: str
    token: str
    failure: DomainFailure
    recipients: tuple[str, ...]

    @property
    def subject(self) -> str:
        """The subject line."""
        return f"Google sign-in auto-join paused for {self.domain}"

    @property
    def text(self) -> str:
        """The plain-text body."""
        return (
            f"Hello,\n\n"
            f"We checked the DNS of {self.domain} for the {self.account_name} account: "
            f"{failure_message(self.failure, self.domain)}\n\n"
            f"Until the record is back, people with an address at {self.domain} cannot join "
            f"{self.account_name} by signing in with Google. Its users keep their access.\n\n"
            f"To resume, publish this TXT record at {self.domain} again, then press Verify "
            f"under User Management > Security > Domains in the console:\n\n"
            f'    {self.domain}.  TXT  "{record_value(self.token)}"\n\n'
            f"Every user of {self.account_name} receives this message.\n"
        )

    def message_key(self, to: str) -> str:
        """The ``Message-ID`` key of the notice to ``to``: ``domain-lost.<domain row>.<lost at,
        epoch ms>.<recipient tag>`` (one notice per loss and recipient)."""
        lost = int(self.lost_at.timestamp() * 1000)
        return f"domain-lost.{self.domain_id}.{lost}.{recipient_tag(to)}"


async def defer_domain_lost(db: AsyncSession, notice: DomainLostNotice) -> None:
    """Defer ``notice`` to each recipient in ``db``'s transaction (one job per recipient): it is
    sent only if the change commits."""
    await defer_emails(
        db,
        [
            Email(
                to=to, subject=notice.subject, text=notice.text, message_key=notice.message_key(to)
            )
            for to in notice.recipients
        ],
    )
