"""The email the account's users get when one of its domains loses verification (README "Verified
domains").

Sent over SMTP (api/adapters/mail.py, the console's own sender; Cognito only sends its own
messages), one message per user, after the change is committed. A failure to send is logged
and does not undo the change: auto-join stopped either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from api.adapters.mail import Mailer
from api.models import DomainFailure
from api.sso.verification import failure_message, record_value


@dataclass(frozen=True, slots=True)
class DomainLostNotice:
    """Who to tell that ``domain`` of ``account_name`` lost verification, and why."""

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


async def send_domain_lost(mailer: Mailer, notice: DomainLostNotice) -> int:
    """Email ``notice`` to each recipient; returns how many were sent. Never raises: a
    refusal or an unreachable relay is logged per recipient."""
    return await mailer.send_each(
        notice.recipients, notice.subject, notice.text, domain=notice.domain
    )
