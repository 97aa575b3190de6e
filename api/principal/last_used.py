"""When a credential (an API key, a SCIM token) was last used (README "API keys", "Directory
sync (SCIM)"): written at most once a minute per credential, since the credentials are checked
on every request of the metering intake and the SCIM service."""

from __future__ import annotations

import time
import uuid
from typing import Any

from sqlalchemy import bindparam, func, or_, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

EVERY_S = 60.0


class LastUsed:
    """Records uses of the credentials of ``table`` (an ORM model with ``id`` and
    ``last_used_at``) at most once a minute each: this process skips the write within the
    minute, and the statement's own condition holds it across replicas.

    Memory: one entry per credential this process has seen (a few dozen bytes each)."""

    def __init__(self, table: Any) -> None:
        self._statement = (
            update(table)
            .where(
                table.id == bindparam("credential_id"),
                or_(
                    table.last_used_at.is_(None),
                    table.last_used_at < func.now() - text("interval '1 minute'"),
                ),
            )
            .values(last_used_at=func.now())
        )
        self._written: dict[uuid.UUID, float] = {}

    async def record(self, connection: AsyncConnection, credential_id: uuid.UUID) -> None:
        """Note that ``credential_id`` was used now, on ``connection`` (autocommit)."""
        now = time.monotonic()
        if now - self._written.get(credential_id, -EVERY_S) >= EVERY_S:
            self._written[credential_id] = now
            await connection.execute(self._statement, {"credential_id": credential_id})
