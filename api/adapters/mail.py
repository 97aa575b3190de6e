"""Email the console sends itself, over SMTP with ``aiosmtplib`` (usage alerts; the lost-domain
notice of a verified domain), from the worker's email task (api/app/jobs/emails.py). Cognito still
sends its own messages (codes, temporary passwords).

Any SMTP relay works (Amazon SES's SMTP interface, Postmark, Mailgun, a company relay):
``SMTP_HOST``, ``SMTP_PORT``, ``SMTP_SECURITY`` (``starttls``, ``tls`` or ``none``),
``SMTP_USERNAME`` / ``SMTP_PASSWORD`` and ``MAIL_FROM``. The dev stack runs a loopback sink
(``aiosmtpd``, devstack/smtp_sink.py) whose messages appear in ``/dev/mailbox``, so the
same code path runs in ``make dev``, ``make test`` and production. RFC 5321 (SMTP), RFC 3207
(STARTTLS), RFC 8314 (implicit TLS).

Raises :class:`MailRefused` (the server refused: its code and message) or
:class:`MailUnavailable` (not reachable, timed out, or a temporary 4xx failure).
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import parseaddr
from typing import Literal

import aiosmtplib

from api.kernel.config import Settings
from api.kernel.http.vendor_budget import within_budget

SmtpSecurity = Literal["starttls", "tls", "none"]


class MailRefused(Exception):
    """The SMTP server refused the message for good (5xx: e.g. an unknown sender)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class MailUnavailable(Exception):
    """The server could not be reached, timed out or failed for now (4xx); not sent."""


class Mailer:
    """Sends plain-text emails (UTF-8), one SMTP connection per message.

    Args:
        host / port: the relay, e.g. ``email-smtp.us-east-1.amazonaws.com`` and 587.
        security: ``starttls`` (upgrade on 587), ``tls`` (implicit TLS on 465) or ``none``
            (loopback sinks only; the settings guard refuses it elsewhere).
        username / password: SMTP AUTH credentials; empty sends without AUTH.
        sender: the ``From`` address, e.g. ``Console <no-reply@example.com>``.
        timeout_s: timeout of each SMTP step, seconds.
    """

    def __init__(
        self,
        *,
        host: str,
        port: int,
        sender: str,
        security: SmtpSecurity = "starttls",
        username: str = "",
        password: str = "",
        timeout_s: float = 10.0,
    ) -> None:
        self.host = host
        self.port = port
        self.sender = sender
        self.security = security
        self._username = username
        self._password = password
        self._timeout_s = timeout_s

    @classmethod
    def from_settings(cls, settings: Settings) -> Mailer:
        """The mailer of the ``SMTP_*`` settings and ``MAIL_FROM``."""
        return cls(
            host=settings.mail.smtp_host,
            port=settings.mail.smtp_port,
            sender=settings.mail.mail_from,
            security=settings.mail.smtp_security,
            username=settings.mail.smtp_username,
            password=settings.mail.smtp_password.get_secret_value(),
            timeout_s=settings.mail.smtp_timeout_s,
        )

    async def aclose(self) -> None:
        """Nothing to close: each message uses its own connection."""

    def message_id(self, key: str) -> str:
        """The ``Message-ID`` of the message named ``key`` (letters, digits, ``.``, ``-``):
        ``<key@domain of the From address>`` (RFC 5322 3.6.4), e.g.
        ``<usage-alert.….50.3f2a…@example.com>``; ``localhost`` when the address has none."""
        domain = parseaddr(self.sender)[1].rpartition("@")[2] or "localhost"
        return f"<{key}@{domain}>"

    async def send(self, to: str, subject: str, text: str, *, message_id: str = "") -> None:
        """Send one plain-text email to one recipient; ``message_id`` (see
        :meth:`message_id`) is its ``Message-ID`` header (none when empty: the relay may add
        one).

        Raises:
            MailRefused: a permanent refusal (5xx) of the sender, recipient or message.
            MailUnavailable: no host configured, connection failure, timeout, or 4xx.
        """
        if not self.host:
            raise MailUnavailable("SMTP_HOST is not set")
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        if message_id:
            message["Message-ID"] = message_id
        message.set_content(text)
        try:
            async with within_budget():
                await aiosmtplib.send(
                    message,
                    hostname=self.host,
                    port=self.port,
                    username=self._username or None,
                    password=self._password or None,
                    use_tls=self.security == "tls",
                    start_tls=self.security == "starttls",
                    timeout=self._timeout_s,
                )
        except aiosmtplib.SMTPResponseException as exc:
            if exc.code >= 500:
                raise MailRefused(exc.code, exc.message) from exc
            raise MailUnavailable(f"SMTP {exc.code}: {exc.message}") from exc
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            raise MailUnavailable(f"SMTP: {exc!r}") from exc
