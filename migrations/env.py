"""Alembic environment (async). The database URL comes from ``DATABASE_URL``, or the caller
hands over a connection in ``config.attributes["connection"]`` (``python -m
api.app.commands.migrate``, which
holds the migration lock on it)."""

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from api.models import Base

target_metadata = Base.metadata


def _url() -> str:
    url = context.config.attributes.get("database_url") or os.environ.get("DATABASE_URL", "")
    if not url:
        raise RuntimeError("DATABASE_URL is not set")
    return str(url)


def _include_name(name: str | None, type_: str, _parents: object) -> bool:
    """Leave out of autogenerate the audit log's month partitions (and their indexes: the
    database makes them, ``audit_event_ensure_partitions``, the models name only the parent)
    and the job engine's tables (procrastinate's own schema, applied as it ships it)."""
    name = name or ""
    if name.startswith("procrastinate_"):
        return False
    return not name.startswith("audit_event_") or name == "audit_event"


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_server_default=True,
        include_name=_include_name,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_async() -> None:
    engine = create_async_engine(_url())
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
elif context.config.attributes.get("connection") is not None:
    _run(context.config.attributes["connection"])
else:
    asyncio.run(_run_async())
