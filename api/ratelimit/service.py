"""Fixed-window rate limiting held in PostgreSQL, so every API replica sees the same counts.

The ``limits`` library (the usual choice) has no PostgreSQL storage, and the API has no other
shared store, so each attempt is one atomic upsert on ``rate_limit_counter``::

    INSERT ... VALUES (key, window_start, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counter.hits + 1
    RETURNING hits

Concurrent attempts on any replica serialise on the row, so none is lost. Counts are written
on the app's autocommit engine, outside the request's transaction: an attempt that fails (and
rolls its request back) still counts. When a key opens a new window, rows of windows that
ended a day ago are deleted, which keeps the table small without a cron job.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Delete, delete
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from api.config import Settings
from api.errors import RateLimited
from api.ratelimit.models import RateLimitCounter


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``max_hits`` attempts per key in each window of ``window_s`` seconds."""

    name: str
    max_hits: int
    window_s: int


class RateLimiter:
    """Counts attempts per key in PostgreSQL.

    Args:
        engine: an AUTOCOMMIT engine (``app.state.read_engine``): each hit commits at once.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def hit(self, limit: Limit, subject: str, now: datetime | None = None) -> int:
        """Count one attempt of ``subject`` against ``limit``; returns the window's count.

        Raises:
            RateLimited: the count is above ``limit.max_hits`` (HTTP 429).
        """
        now = now or datetime.now(UTC)
        epoch_s = int(now.timestamp())
        window_start = datetime.fromtimestamp(epoch_s - epoch_s % limit.window_s, UTC)
        key = f"{limit.name}:{subject}"
        statement = (
            insert(RateLimitCounter)
            .values(key=key, window_start=window_start, hits=1)
            .on_conflict_do_update(
                index_elements=[RateLimitCounter.key, RateLimitCounter.window_start],
                set_={"hits": RateLimitCounter.hits + 1},
            )
            .returning(RateLimitCounter.hits)
        )
        async with self._engine.connect() as connection:
            hits = int((await connection.execute(statement)).scalar_one())
            if hits == 1:
                await connection.execute(_expired(window_start - timedelta(seconds=86_400)))
        if hits > limit.max_hits:
            raise RateLimited(
                f"Too many attempts. Please wait {_wait_text(limit.window_s)} and try again."
            )
        return hits


def _expired(before: datetime) -> Delete:
    """Delete the rows of windows that started before ``before`` (a day back: longer than any
    window we use); ``ix_rate_limit_counter_window_start`` finds them."""
    return delete(RateLimitCounter).where(RateLimitCounter.window_start < before)


def _wait_text(window_s: int) -> str:
    if window_s < 120:
        return f"{window_s} seconds"
    return f"{window_s // 60} minutes"


@dataclass(frozen=True, slots=True)
class PasswordAttempts:
    """Counts the password attempts of one request: per email (or username) and per client
    address, in the fixed windows of ``settings`` (README "Sign-in attempt limits")."""

    limiter: RateLimiter
    settings: Settings
    client_address: str

    async def count(self, subject: str) -> None:
        """Count one attempt for ``subject``.

        Raises:
            RateLimited: either count is over its limit in the current window (HTTP 429).
        """
        window = self.settings.sign_in_limit_window_s
        await self.limiter.hit(
            Limit("sign-in:email", self.settings.sign_in_limit_per_email, window), subject
        )
        await self.limiter.hit(
            Limit("sign-in:ip", self.settings.sign_in_limit_per_address, window),
            self.client_address,
        )
