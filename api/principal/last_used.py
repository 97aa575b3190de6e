"""When a credential (an API key, a SCIM token, an access token) was last used (README "API
keys", "Directory sync (SCIM)", "Automation"): written at most once a minute per credential,
since the credentials are checked on every request of the metering intake, the SCIM service
and the automation that uses tokens."""

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

    def __init__(self, table: Any, *, with_address: bool = False) -> None:
        values: dict[str, Any] = {"last_used_at": func.now()}
        if with_address:  # the table has ``last_used_address`` (an access token)
            values["last_used_address"] = bindparam("address")
        self._statement = (
            update(table)
            .where(
                table.id == bindparam("credential_id"),
                or_(
                    table.last_used_at.is_(None),
                    table.last_used_at < func.now() - text("interval '1 minute'"),
                ),
            )
            .values(**values)
        )
        self._with_address = with_address
        self._written: dict[uuid.UUID, float] = {}

    def due(self, credential_id: uuid.UUID) -> bool:
        """Whether this process should write a use of ``credential_id`` now (none within the
        minute)."""
        return time.monotonic() - self._written.get(credential_id, -EVERY_S) >= EVERY_S

    async def record(
        self, connection: AsyncConnection, credential_id: uuid.UUID, address: str | None = None
    ) -> None:
        """Note that ``credential_id`` was used now (from ``address``, where the table keeps
        it), on ``connection`` (autocommit)."""
        if self.due(credential_id):
            self._written[credential_id] = time.monotonic()
            params: dict[str, Any] = {"credential_id": credential_id}
            if self._with_address:
                params["address"] = address
            await connection.execute(self._statement, params)
