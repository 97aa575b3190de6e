"""When a credential (an API key, a SCIM token, an access token, a sign-in session) was last
used (README "API keys", "Directory sync (SCIM)", "Automation", "Sessions"): written at most
once a minute per credential, since the credentials are checked on every request of the
metering intake, the SCIM service, the automation that uses tokens and the console."""

from __future__ import annotations

import time
import uuid
from typing import Any

from sqlalchemy import bindparam, func, or_, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

EVERY_S = 60.0


class _OncePerMinute:
    """This process's memory of the writes it made: one entry per credential seen (a few dozen
    bytes each)."""

    def __init__(self) -> None:
        self._written: dict[uuid.UUID, float] = {}

    def due(self, credential_id: uuid.UUID) -> bool:
        """Whether this process should write a use of ``credential_id`` now (none within the
        minute)."""
        return time.monotonic() - self._written.get(credential_id, -EVERY_S) >= EVERY_S

    def _take(self, credential_id: uuid.UUID) -> bool:
        """:meth:`due`, and if so the write counts as made from now."""
        if not self.due(credential_id):
            return False
        self._written[credential_id] = time.monotonic()
        return True


class LastUsed(_OncePerMinute):
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
        super().__init__()

    async def record(
        self, connection: AsyncConnection, credential_id: uuid.UUID, address: str | None = None
    ) -> None:
        """Note that ``credential_id`` was used now (from ``address``, where the table keeps
        it), on ``connection`` (autocommit)."""
        if self._take(credential_id):
            params: dict[str, Any] = {"credential_id": credential_id}
            if self._with_address:
                params["address"] = address
            await connection.execute(self._statement, params)


class RawLastUsed(_OncePerMinute):
    """:class:`LastUsed` on an asyncpg connection (``api.kernel.db.driver_connection``), for the
    checks that run as one prepared statement: ``column`` of ``table`` (constant names) is set
    to now for the row ``id``, at most once a minute."""

    def __init__(self, table: str, column: str) -> None:
        super().__init__()
        self._sql = (
            f"UPDATE {table} SET {column} = now() "  # noqa: S608 - constant names only
            f"WHERE id = $1 AND {column} < now() - interval '1 minute'"
        )

    async def record(self, connection: Any, row_id: uuid.UUID) -> None:
        """Note a use of ``row_id`` now on ``connection`` (asyncpg, autocommit)."""
        if self._take(row_id):
            await connection.execute(self._sql, row_id)
