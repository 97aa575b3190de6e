"""Database engine, declarative base and the per-request transaction.

One transaction per request (STYLE: polar): the ``get_db`` dependency opens an
``AsyncSession``; the route's service only ``flush()``es; the dependency commits when the
request succeeds and rolls back on any exception, so a failed request never half-writes.

Safe requests (GET, HEAD) only read. They run on an autocommit connection: under PostgreSQL's
READ COMMITTED every statement takes its own snapshot even inside a transaction, so BEGIN and
COMMIT would add two round trips (measured in bench/api.py) and no guarantee. A flush on such
a session raises, so a read route can never write.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from fastapi import Request
from sqlalchemy import DateTime, MetaData, event, func
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.util import greenlet_spawn

from api.kernel.http.vendor_budget import vendor_budget

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of every table; constraint names follow ``NAMING_CONVENTION``."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def new_id() -> uuid.UUID:
    """Primary keys are random UUIDs (no enumerable ids in URLs)."""
    return uuid.uuid4()


class TimestampMixin:
    """``created_at`` set by the database."""

    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), nullable=False
    )


def create_engine(database_url: str, pool_size: int = 20) -> AsyncEngine:
    """Create the asyncpg engine.

    Args:
        database_url: ``postgresql+asyncpg://...`` URL.
        pool_size: connections kept open per process. There is no overflow: connections
            opened and closed under load cost more than waiting for a pooled one.
    """
    return create_async_engine(
        database_url, pool_size=pool_size, max_overflow=0, pool_pre_ping=False
    )


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit."""
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)


class ReadOnlySessionError(RuntimeError):
    """A read-only (GET) request tried to write."""


class ReadOnlySession(Session):
    """ORM session of safe requests."""


@event.listens_for(ReadOnlySession, "before_flush")
def _refuse_flush(session: Session, *_: object) -> None:
    raise ReadOnlySessionError("GET requests must not write to the database")


def create_read_sessionmaker(read_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions for safe requests on an autocommit engine; flushing one raises
    ReadOnlySessionError."""
    return async_sessionmaker(
        read_engine,
        sync_session_class=ReadOnlySession,
        expire_on_commit=False,
        autoflush=False,
    )


@asynccontextmanager
async def driver_connection(engine: AsyncEngine) -> AsyncIterator[Any]:
    """The asyncpg connection of one of ``engine``'s pooled connections, for the reads on
    every request (the caller lookup, Account Information).

    The statement is sent with asyncpg's own ``fetchrow``/``fetchval`` (prepared once per
    connection, in asyncpg's statement cache) on a connection checked out of the pool
    directly: SQLAlchemy's ``AsyncConnection`` and execution layers cost more CPU than the
    round trip itself there (about 90 µs per checkout against 30 µs; bench/api.py with
    --profile). SQLAlchemy does not see what is sent this way, so use it for single reads
    only (asyncpg runs each statement in its own implicit transaction), and when the block
    raises (the connection died, the request was cancelled mid-statement) the connection is
    invalidated rather than pooled again in an unknown state. Errors are asyncpg's own
    (``asyncpg.PostgresError``; ``OSError``, ``asyncpg.InterfaceError`` or
    ``asyncpg.InternalClientError`` when the connection is gone), which
    ``api.kernel.http.db_faults``
    knows.

    Yields:
        ``asyncpg.Connection`` (typed ``Any``: asyncpg ships no type information).
    """
    # Checking out may open a connection, and checking in may reset one: both can await the
    # driver, which SQLAlchemy's pool does from inside a greenlet.
    pooled = await greenlet_spawn(engine.sync_engine.raw_connection)
    try:
        yield pooled.driver_connection
    except BaseException:
        await greenlet_spawn(pooled.invalidate)
        raise
    finally:
        await greenlet_spawn(pooled.close)


async def session_driver_connection(db: AsyncSession) -> Any:
    """The asyncpg connection under ``db``'s current transaction (begun if it was not), for a
    read that must see the request's own changes and is sent as :func:`driver_connection`
    sends it (the same prebuilt statement, asyncpg's ``fetchrow``). Flush pending ORM changes
    first: what asyncpg sends bypasses the session.

    Returns:
        ``asyncpg.Connection`` (typed ``Any``: asyncpg ships no type information).
    """
    connection = await db.connection()
    raw = await connection.get_raw_connection()
    return raw.driver_connection


_UNDO_KEY = "undo_on_rollback"


def undo_on_rollback(db: AsyncSession, undo: Callable[[], Awaitable[None]]) -> None:
    """Register a compensating step for a change made outside the database (e.g. a user
    created in Cognito): ``get_db`` awaits it if the request's transaction does not commit,
    so nothing is left half-made. ``undo`` must not raise (log instead)."""
    db.info.setdefault(_UNDO_KEY, []).append(undo)


# Compensating steps run after the request's vendor budget may be spent (a hung vendor is
# often why the request failed): they get a budget of their own.
UNDO_BUDGET_S = 5.0


async def _run_undo(db: AsyncSession) -> None:
    undos = db.info.pop(_UNDO_KEY, [])
    if not undos:
        return
    with vendor_budget(UNDO_BUDGET_S):
        for undo in reversed(undos):
            await undo()


_SAFE_METHODS = frozenset({"GET", "HEAD"})


class KeepsTransaction(Exception):
    """Base of an error after which the request's transaction still commits: the request is
    refused, but what it wrote after undoing its own work (a rollback to a savepoint) must
    stand. A metering batch refused at a spend limit is one: its records are rolled back, the
    notice that the limit was reached and its emails commit (README "Metering intake")."""


async def _commit(db: AsyncSession) -> None:
    try:
        if db.in_transaction():
            await db.commit()
    except BaseException:
        await _run_undo(db)
        raise
    db.info.pop(_UNDO_KEY, None)


async def get_db(request: Request) -> AsyncIterator[AsyncSession]:
    """FastAPI dependency: one transaction for the whole request.

    Commits when the route returns, rolls back when it raises (then runs the steps registered
    with :func:`undo_on_rollback`), except for an error that is a :class:`KeepsTransaction`, which
    commits and is raised. Nothing is opened on the
    connection until the first statement (SQLAlchemy autobegin). GET and HEAD get a
    read-only autocommit session instead (see the module docstring).
    """
    if request.method in _SAFE_METHODS:
        read_sessionmaker: async_sessionmaker[AsyncSession] = (
            request.app.state.resources.read_sessionmaker
        )
        async with read_sessionmaker() as db:
            yield db
        return
    sessionmaker: async_sessionmaker[AsyncSession] = request.app.state.resources.sessionmaker
    async with sessionmaker() as db:
        try:
            yield db
        except KeepsTransaction:
            await _commit(db)
            raise
        except BaseException:
            try:
                await db.rollback()  # raises too when the connection is gone
            finally:
                await _run_undo(db)
            raise
        else:
            await _commit(db)
