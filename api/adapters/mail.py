"""Email the console sends itself, through Amazon SES (issue 17: the lost-domain notice).

Until issue 17 every email came from Cognito (reset codes, temporary passwords). Notices of
our own go through SES, the AWS service beside the user pool, with its v1 query API
("Amazon SES API v1 reference", SendEmail: ``POST /`` form-encoded ``Action=SendEmail``,
``Version=2010-12-01``, XML answer), signed with SigV4 like Cognito's admin calls. The sender
(``MAIL_FROM``) must be an identity verified in SES; ``SES_ENDPOINT`` empty means
``https://email.<region>.amazonaws.com``. The dev stack points it at moto, which implements
SendEmail, and its mailbox (``/dev/mailbox``) records what was sent.

Raises :class:`MailRefused` (4xx: SES's code and message) or :class:`MailUnavailable`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import httpx

from api.adapters.aws import aws_credentials, sigv4_headers
from api.config import Settings
from api.vendor_budget import within_budget

_CONTENT_TYPE = "application/x-www-form-urlencoded; charset=utf-8"
_ERROR_CODE = re.compile(r"<Code>([^<]*)</Code>")
_ERROR_MESSAGE = re.compile(r"<Message>([^<]*)</Message>")


class MailRefused(Exception):
    """SES refused the message (e.g. ``MessageRejected``: the sender is not verified)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class MailUnavailable(Exception):
    """SES could not be reached, timed out or answered 5xx; the message was not sent."""


class Mailer:
    """Sends plain-text emails with SES SendEmail.

    Build once in the app lifespan (:meth:`from_settings`) and :meth:`aclose` on shutdown.

    Args:
        base_url: SES endpoint, e.g. ``https://email.us-east-1.amazonaws.com``.
        region: AWS region for SigV4.
        sender: the ``Source`` address, verified in SES.
        access_key_id / secret_access_key: credentials; empty uses botocore's default chain.
        timeout_s: timeout of every call, seconds.
        event_hooks: httpx event hooks (the dev stack's mailbox records messages this way).
    """

    def __init__(
        self,
        *,
        base_url: str,
        region: str,
        sender: str,
        access_key_id: str = "",
        secret_access_key: str = "",
        timeout_s: float = 5.0,
        event_hooks: dict[str, list[Any]] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.region = region
        self.sender = sender
        self._credentials = aws_credentials(access_key_id, secret_access_key)
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout_s), event_hooks=event_hooks or {}
        )

    @classmethod
    def from_settings(
        cls, settings: Settings, *, event_hooks: dict[str, list[Any]] | None = None
    ) -> Mailer:
        """The mailer of ``SES_ENDPOINT``, ``MAIL_FROM``, the AWS region and credentials."""
        return cls(
            base_url=settings.ses_base_url,
            region=settings.aws_region,
            sender=settings.mail_from,
            access_key_id=settings.aws_access_key_id,
            secret_access_key=settings.aws_secret_access_key.get_secret_value(),
            timeout_s=settings.ses_timeout_s,
            event_hooks=event_hooks,
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def send(self, to: str, subject: str, text: str) -> None:
        """Send one plain-text email (UTF-8) to one recipient.

        Raises:
            MailRefused: SES answered 4xx (its error code and message).
            MailUnavailable: no credentials, network failure, timeout or 5xx.
        """
        form = {
            "Action": "SendEmail",
            "Version": "2010-12-01",
            "Source": self.sender,
            "Destination.ToAddresses.member.1": to,
            "Message.Subject.Data": subject,
            "Message.Subject.Charset": "UTF-8",
            "Message.Body.Text.Data": text,
            "Message.Body.Text.Charset": "UTF-8",
        }
        body = urlencode(form).encode()
        headers = sigv4_headers(
            self._credentials,
            service="ses",
            region=self.region,
            url=self.base_url + "/",
            body=body,
            headers={"Content-Type": _CONTENT_TYPE},
        )
        if headers is None:
            raise MailUnavailable("No AWS credentials for SES")
        try:
            async with within_budget():
                response = await self._http.post(self.base_url + "/", content=body, headers=headers)
        except (httpx.HTTPError, TimeoutError) as exc:
            raise MailUnavailable(f"SendEmail: {exc!r}") from exc
        if response.status_code >= 500:
            raise MailUnavailable(f"SendEmail: HTTP {response.status_code}")
        if response.status_code >= 400:
            code = _ERROR_CODE.search(response.text)
            message = _ERROR_MESSAGE.search(response.text)
            raise MailRefused(
                code.group(1) if code else "UnknownError",
                message.group(1) if message else response.text[:200],
            )
