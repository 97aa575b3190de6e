"""Development-only stand-in: the dev mailbox, ``GET /dev/mailbox``.

Every message Cognito would email (forgot-password codes, email verification codes, temporary
passwords of invited users), recorded from the Cognito adapter's traffic, and every email the
console sends through the SMTP sink (devstack/smtp_sink.py: usage alerts, lost-domain notices),
served newest first.

``api.kernel.config.Settings.check`` refuses ``DEV_STAND_INS`` outside development, so production
never mounts this module.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import httpx
from fastapi import APIRouter, FastAPI, Query, Request

router = APIRouter(include_in_schema=False)


@dataclass(slots=True)
class MailMessage:
    """One email Cognito would have sent."""

    to: str
    subject: str
    body: str
    code: str | None = None
    temporary_password: str | None = None
    sent_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def as_json(self) -> dict[str, Any]:
        """camelCase JSON like the rest of the API."""
        data = asdict(self)
        data["temporaryPassword"] = data.pop("temporary_password")
        data["sentAt"] = data.pop("sent_at")
        return data


class Mailbox:
    """Newest-first record of the last 500 messages."""

    def __init__(self) -> None:
        self.messages: deque[MailMessage] = deque(maxlen=500)

    def record(self, message: MailMessage) -> None:
        """Store a message."""
        self.messages.appendleft(message)


def _mailbox(app: FastAPI) -> Mailbox:
    if not hasattr(app.state, "mailbox"):
        app.state.mailbox = Mailbox()
    mailbox: Mailbox = app.state.mailbox
    return mailbox


def cognito_event_hooks(app: FastAPI) -> dict[str, list[Any]]:
    """httpx hooks for the Cognito adapter that record what Cognito would email.

    ForgotPassword: moto returns the code in ``x-moto-forgot-password-confirmation-code``.
    GetUserAttributeVerificationCode: the stand-in (devstack/moto_server.py) returns the
    code and the address in ``x-moto-attribute-verification-code`` / ``-to``.
    AdminCreateUser with a TemporaryPassword and no SUPPRESS: Cognito emails the invitation.
    """
    mailbox = _mailbox(app)
    targets = ("ForgotPassword", "AdminCreateUser", "GetUserAttributeVerificationCode")

    async def on_response(response: httpx.Response) -> None:
        target = response.request.headers.get("x-amz-target", "").rsplit(".", 1)[-1]
        if response.status_code != 200 or target not in targets:
            return
        payload = json.loads(response.request.content or b"{}")
        if target == "GetUserAttributeVerificationCode":
            code = response.headers.get("x-moto-attribute-verification-code")
            if code:
                mailbox.record(
                    MailMessage(
                        to=response.headers.get("x-moto-attribute-verification-to", ""),
                        subject="Your verification code",
                        body=f"Your verification code is {code}",
                        code=code,
                    )
                )
        elif target == "ForgotPassword":
            code = response.headers.get("x-moto-forgot-password-confirmation-code")
            if code:
                mailbox.record(
                    MailMessage(
                        to=payload.get("Username", ""),
                        subject="Your verification code",
                        body=f"Your password reset code is {code}",
                        code=code,
                    )
                )
        elif payload.get("TemporaryPassword") and payload.get("MessageAction") != "SUPPRESS":
            attrs = {a["Name"]: a["Value"] for a in payload.get("UserAttributes", [])}
            password = payload["TemporaryPassword"]
            mailbox.record(
                MailMessage(
                    to=attrs.get("email", payload.get("Username", "")),
                    subject="Your temporary password",
                    body=f"Your username is {payload.get('Username')} and temporary password "
                    f"is {password}",
                    temporary_password=password,
                )
            )

    return {"response": [on_response]}


def _sent_by_us(path: str) -> list[dict[str, Any]]:
    """What the SMTP sink accepted (devstack/smtp_sink.py), the last 500, as JSON."""
    if not path:
        return []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()[-500:]
    except FileNotFoundError:
        return []
    return [{**json.loads(line), "code": None, "temporaryPassword": None} for line in lines if line]


@router.get("/dev/mailbox")
async def mailbox(
    request: Request, to: Annotated[str | None, Query()] = None
) -> list[dict[str, Any]]:
    """Messages, newest first: what Cognito would have sent and what the console sent through
    the SMTP sink; ``?to=`` filters by recipient (case-insensitive)."""
    box = _mailbox(request.app)
    messages = [m.as_json() for m in box.messages]
    messages += _sent_by_us(request.app.state.settings.mail.dev_mailbox_path)
    messages.sort(key=lambda m: str(m["sentAt"]), reverse=True)
    wanted = to.strip().lower() if to else None
    return [m for m in messages if wanted is None or str(m["to"]).lower() == wanted]
