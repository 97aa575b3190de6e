"""``python -m api.migrate``: ``alembic upgrade head`` that N replicas may start together.

The upgrade runs on one connection that first takes a PostgreSQL session-level advisory lock
(``pg_advisory_lock``, PostgreSQL docs "Advisory Locks"): the first process migrates, the others
wait on the lock, then find the schema at head and do nothing. The connection is handed to
``migrations/env.py`` through ``config.attributes["connection"]`` (Alembic cookbook
"Programmatic API use (connection sharing) With Asyncio").

The same module tells the API whether the database's schema is behind this release
(:func:`schema_state`): ``GET /readyz`` answers 503 ``SchemaBehind`` until the migration has
run, so no replica takes traffic on a schema older than its code (README "Running replicas").
A schema *ahead* of the code (a newer release migrated first, during a rolling deploy) is fine:
migrations add before they remove.

    DATABASE_URL=postgresql+asyncpg://... python -m api.migrate

Exit status 0 when the schema is at head, 1 with the error on stderr otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

ROOT = Path(__file__).resolve().parents[1]
# Any 64-bit number no other lock of this database uses; "console migrations" in ASCII.
MIGRATION_LOCK_ID = 0x636F6E736F6C65


def alembic_config(database_url: str) -> Config:
    """The project's ``alembic.ini`` with ``database_url`` for ``migrations/env.py``."""
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = database_url
    return config


@cache
def _script() -> ScriptDirectory:
    return ScriptDirectory(str(ROOT / "migrations"))


def head_revision() -> str:
    """The revision this release's code expects (the single head of ``migrations/``)."""
    head = _script().get_current_head()
    if head is None:
        raise RuntimeError("migrations/ has no head revision")
    return head


@dataclass(frozen=True, slots=True)
class SchemaState:
    """Where the database's schema stands against this release.

    ``current`` is the revision in ``alembic_version`` (None: never migrated); ``behind`` is
    true when that revision is one of ours but not the head (or there is none).
    """

    current: str | None
    head: str
    behind: bool

    @property
    def reason(self) -> str:
        """The sentence ``/readyz`` shows while the schema is behind."""
        return (
            f"The database schema is at {self.current or 'no revision'}, this release needs "
            f"{self.head}: run `python -m api.migrate`."
        )


async def schema_state(connection: AsyncConnection) -> SchemaState:
    """Read ``alembic_version`` on ``connection`` (one query; it doubles as the database ping).

    Raises:
        sqlalchemy.exc.DBAPIError: the database cannot be reached (any error but a missing
            ``alembic_version`` table, which means "never migrated").
    """
    head = head_revision()
    try:
        current = (
            await connection.execute(text("SELECT version_num FROM alembic_version"))
        ).scalar()
    except ProgrammingError as exc:
        if "alembic_version" not in str(exc):
            raise
        await connection.rollback()
        return SchemaState(current=None, head=head, behind=True)
    if current is None:
        return SchemaState(current=None, head=head, behind=True)
    return SchemaState(
        current=current, head=head, behind=current in _revisions() and current != head
    )


@cache
def _revisions() -> frozenset[str]:
    return frozenset(script.revision for script in _script().walk_revisions())


async def upgrade(database_url: str) -> None:
    """``alembic upgrade head`` under the migration lock; returns once the schema is at head.

    Raises:
        sqlalchemy.exc.DBAPIError: the database refused (unreachable, a migration failed);
            the failed migration's transaction is rolled back and the lock released.
    """
    engine = create_async_engine(database_url, pool_size=1, max_overflow=0)
    try:
        async with engine.connect() as connection:
            await connection.execute(
                text("SELECT pg_advisory_lock(:id)"), {"id": MIGRATION_LOCK_ID}
            )
            await connection.commit()
            try:
                await connection.run_sync(_upgrade_on, database_url)
            finally:
                await connection.rollback()
                await connection.execute(
                    text("SELECT pg_advisory_unlock(:id)"), {"id": MIGRATION_LOCK_ID}
                )
                await connection.commit()
    finally:
        await engine.dispose()


def _upgrade_on(connection: Connection, database_url: str) -> None:
    config = alembic_config(database_url)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    connection.commit()


def main() -> None:
    """Run :func:`upgrade` on ``DATABASE_URL`` (``api.config.Settings``); exit 1 on failure."""
    from api.config import Settings

    settings = Settings()
    settings.check_database()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s [%(name)s] %(message)s")
    try:
        asyncio.run(upgrade(settings.database_url))
    except Exception as exc:
        print(f"migration failed: {exc!r}", file=sys.stderr)
        raise SystemExit(1) from exc
    print(f"schema at {head_revision()}", file=sys.stderr)


if __name__ == "__main__":
    main()
