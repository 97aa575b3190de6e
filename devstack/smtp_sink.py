"""The dev stack's SMTP sink: a loopback SMTP server (``aiosmtpd``) that delivers nothing and
appends every message it accepts to a JSON-lines file, which ``/dev/mailbox`` shows next to
what Cognito would have sent. The API sends to it with the same code as to a real
relay (api/adapters/mail.py), so ``make dev`` and ``make test`` run the production path.

``python -m devstack.smtp_sink --port 8425 --mailbox .devdata/mailbox.jsonl [--delay-ms 0]``

``--delay-ms`` holds each message that long before taking it (a relay's latency; ``make
scale-check`` uses it so that a worker it kills is likely to be in the middle of a send).

Each line: ``{"to", "subject", "messageId", "body", "sentAt"}`` (one line per recipient; ISO
8601 UTC).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session


class MailboxHandler:
    """aiosmtpd handler: record each accepted message in ``path``, ``delay_s`` after its data
    came (a connection closed meanwhile takes nothing)."""

    def __init__(self, path: Path, delay_s: float = 0.0) -> None:
        self.path = path
        self.delay_s = delay_s

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:  # noqa: N802 - aiosmtpd's hook name
        """Append the message (plain-text part) once per recipient; answer 250."""
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        raw = envelope.original_content or envelope.content or b""
        message = message_from_bytes(
            raw if isinstance(raw, bytes) else raw.encode(), policy=policy.default
        )
        assert isinstance(message, EmailMessage)
        part = message.get_body(preferencelist=("plain",))
        body = part.get_content() if part is not None else ""
        sent_at = datetime.now(UTC).isoformat()
        with self.path.open("a", encoding="utf-8") as out:
            for to in envelope.rcpt_tos:
                line: dict[str, Any] = {
                    "to": to,
                    "subject": str(message["Subject"] or ""),
                    "messageId": str(message["Message-ID"] or ""),
                    "body": body,
                    "sentAt": sent_at,
                }
                out.write(json.dumps(line) + "\n")
        return "250 Message accepted for delivery"


async def serve(port: int, mailbox: Path, delay_s: float = 0.0) -> None:
    """Listen on 127.0.0.1:``port`` until cancelled (``mailbox`` exists)."""
    handler = MailboxHandler(mailbox, delay_s)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(handler), "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def main() -> None:
    """Parse arguments and serve until terminated."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mailbox", type=Path, required=True)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    args = parser.parse_args()
    mailbox: Path = args.mailbox
    mailbox.parent.mkdir(parents=True, exist_ok=True)
    mailbox.touch()
    asyncio.run(serve(args.port, mailbox, args.delay_ms / 1000))


if __name__ == "__main__":
    main()
