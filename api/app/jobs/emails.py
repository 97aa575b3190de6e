"""The email task (README "Background work"): sends one :class:`api.kernel.deferred.Email` over SMTP
(api/adapters/mail.py) with its stable ``Message-ID``.

An unreachable relay, a timeout or a temporary (4xx) refusal fails the attempt and the job is
tried again with an exponential backoff (:data:`EMAIL_RETRY`: 2 s, 4 s, ... 68 min, about 2 h
16 min in all); a permanent (5xx) refusal is logged and not retried (a retry would get the
same answer). A worker killed mid-send leaves the job ``doing`` until its heartbeat is found
stale; sent again then, it carries the same ``Message-ID``, by which a relay or mail client
can recognise the copy.
"""

from __future__ import annotations

import procrastinate
import structlog

from api.adapters.mail import Mailer, MailRefused, MailUnavailable
from api.kernel.deferred import EMAIL_QUEUE, EMAIL_TASK

log = structlog.get_logger(__name__)

EMAIL_RETRY = procrastinate.RetryStrategy(
    max_attempts=12, exponential_wait=2, retry_exceptions={MailUnavailable}
)
"""Retries of the email task: the n-th retry waits 2**n seconds (n = 1..12), so 13 attempts in
all, the last one about 2 h 16 min after the first."""


def retry_schedule_s() -> list[int]:
    """The waits of :data:`EMAIL_RETRY` before each retry, seconds (procrastinate's formula
    ``exponential_wait ** (attempts + 1)``)."""
    attempts = EMAIL_RETRY.max_attempts or 0
    return [int((EMAIL_RETRY.exponential_wait or 0) ** (n + 1)) for n in range(attempts)]


def register(app: procrastinate.App, mailer: Mailer) -> None:
    """Add the email task, sending with ``mailer``, to ``app``."""

    @app.task(name=EMAIL_TASK, queue=EMAIL_QUEUE, retry=EMAIL_RETRY)
    async def send_email(to: str, subject: str, text: str, message_key: str) -> None:
        """Send one message; raises MailUnavailable (retried) when it may not have left."""
        try:
            await mailer.send(to, subject, text, message_id=mailer.message_id(message_key))
        except MailRefused as exc:
            log.error("mail_refused", to=to, subject=subject, code=exc.code, error=exc.message)
        except MailUnavailable as exc:
            log.warning("mail_retry", to=to, subject=subject, error=str(exc))
            raise
