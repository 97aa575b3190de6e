"""What a request does when PostgreSQL drops its connections (a restart, a failover, an
administrator's ``pg_terminate_backend``) or is down (README "Configuration (production)", when
PostgreSQL drops connections).

- A safe request (GET, HEAD) whose connection turns out dead before anything was sent is run
  once more, after the pool is replaced (its other connections died too), so the retry gets a
  fresh connection. No round trip is added to healthy requests (no pre-ping).
- Any other request, or a retry that fails too, answers 503 ``DatabaseUnavailable`` in the
  usual envelope instead of a 500. A write's transaction died with its connection, so
  PostgreSQL kept nothing of it, and ``get_db`` runs its compensating steps (e.g. removing a
  Cognito user it created).
"""

from __future__ import annotations

import asyncpg
import structlog
from sqlalchemy.exc import DBAPIError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.kernel.errors import DatabaseUnavailable, error_response

log = structlog.get_logger(__name__)

# SQLSTATE 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now.
_SHUTDOWN_STATES = frozenset({"57P01", "57P02", "57P03"})
_SAFE_METHODS = frozenset({"GET", "HEAD"})


def is_database_unavailable(exc: BaseException) -> bool:
    """True when ``exc`` (or what it wraps) says the database connection is gone or cannot be
    opened, rather than that a statement was wrong."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, OSError | asyncpg.PostgresConnectionError):
            return True
        if isinstance(current, asyncpg.PostgresError) and current.sqlstate in _SHUTDOWN_STATES:
            return True
        if isinstance(current, asyncpg.InterfaceError) and "connection is closed" in str(current):
            return True
        # A connection whose server ended it while it sat idle in the pool: asyncpg read the
        # FATAL message as a protocol error and refuses the next statement ("cannot switch to
        # state ...; another operation is in progress") before it notices the socket closed.
        if isinstance(current, asyncpg.InternalClientError):
            return True
        wrapped = getattr(current, "orig", None)
        current = wrapped if isinstance(wrapped, BaseException) else current.__cause__
    return False


class DatabaseFaultsMiddleware:
    """Pure ASGI middleware: retry a safe request once, else answer 503 (module docstring).

    Place it inside the error-rendering middleware (added with ``add_middleware`` it is), so
    it sees the database error before Starlette turns it into a 500.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        attempts = 2 if scope["method"] in _SAFE_METHODS else 1
        for attempt in range(1, attempts + 1):
            try:
                await self.app(scope, receive, tracking_send)
                return
            except Exception as exc:
                if started or not is_database_unavailable(exc):
                    raise
                log.warning("database_unavailable", attempt=attempt, error=repr(exc))
                await scope["app"].state.resources.replace_pools()
        await error_response(DatabaseUnavailable, {"retry-after": "2"})(scope, receive, send)
