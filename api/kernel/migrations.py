"""The schema migrations at run time: ``alembic upgrade head`` that N replicas may start
together (:func:`upgrade`, run by ``python -m api.app.commands.migrate``), and whether the
database's
schema is behind this release (:func:`schema_state`).

The upgrade runs on one connection that first takes a PostgreSQL session-level advisory lock
(``pg_advisory_lock``, PostgreSQL docs "Advisory Locks"): the first process migrates, the others
wait on the lock, then find the schema at head and do nothing. The connection is handed to
``migrations/env.py`` through ``config.attributes["connection"]`` (Alembic cookbook
"Programmatic API use (connection sharing) With Asyncio").

``GET /readyz`` answers 503 ``SchemaBehind`` until the migration has run, so no replica takes
traffic on a schema older than its code (README "Running replicas"). A schema *ahead* of the
code (a newer release migrated first, during a rolling deploy) is fine: migrations add before
they remove.
"""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parents[2]
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
            f"{self.head}: run `python -m api.app.commands.migrate`."
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
