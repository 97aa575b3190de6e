"""The guard on every authenticator-app code the console has Cognito check (README "Two-step
sign-in": wrong codes lock the second step, a code works once).

- **Wrong codes lock the user's code step.** Keyed by the user's id (never by how a request
  spells them), across every path that checks a code of their authenticator (sign-in and the
  re-authentication of New recovery codes and Turn off) and every client address: after
  ``TWO_STEP_LOCK_FREE_FAILURES`` wrong codes in a row no code of theirs is tried for
  ``TWO_STEP_LOCK_BASE_S``, and each further wrong code doubles the lock up to
  ``TWO_STEP_LOCK_MAX_S``. Only a right code resets the count: a right password does not (it
  clears the password backoff, api/kernel/ratelimit), and neither does time. As the password
  backoff, an attempt is counted before Cognito sees it (one atomic upsert that refuses while
  the lock runs), so a parallel burst gets no more tries than a sequence, and is given back
  when it was not a wrong code (Cognito unreachable, an expired challenge, a replay).
- **A code works once** (RFC 6238 5.2). The console keeps no TOTP secret (Cognito checks
  codes), so it cannot tell which time step a code belongs to; it keeps each code it had
  checked, per user, until no clock Cognito accepts could show it any more: a code accepted
  in time step ``w`` belongs to a step of ``w - DRIFT_STEPS`` to ``w + DRIFT_STEPS``, which
  Cognito accepts up to the end of step ``w + 2 * DRIFT_STEPS``. The code is claimed before
  Cognito sees it (an insert that finds it used refuses), so of two requests with one code
  the second is refused even when both arrive at once; a code Cognito refuses is let go.

Counts and claims are written on the autocommit engine of the rate limits
(``RateLimiter.engine``): they hold whatever becomes of the request's transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, case, delete, func, literal, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.adapters.cognito import CodeMismatchError
from api.identity.mfa.errors import TwoStepCodeUsed
from api.kernel.config import Settings
from api.kernel.errors import RateLimited
from api.models import TwoStepLock, TwoStepUsedCode
from api.ratelimit import NOT_BLOCKED, RateLimiter

STEP_S = 30
"""RFC 6238's time step, seconds: what authenticator apps and Cognito use."""
DRIFT_STEPS = 1
"""Time steps of clock drift Cognito forgives either way. Cognito does not document it; one
step is what it is seen to forgive and what RFC 6238 5.2 recommends (the dev stand-in forgives
the same, devstack/moto_server.py)."""


def usable_until(now: datetime) -> datetime:
    """The end of the last time step in which Cognito could accept a code it accepted at
    ``now``: ``(w + 2 * DRIFT_STEPS + 1) * STEP_S`` for the step ``w`` of ``now``."""
    step = int(now.timestamp()) // STEP_S
    return datetime.fromtimestamp((step + 2 * DRIFT_STEPS + 1) * STEP_S, UTC)


def _wait_text(seconds: int) -> str:
    minutes = -(-seconds // 60)
    if minutes < 120:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{-(-minutes // 60)} hours"


@dataclass(frozen=True, slots=True)
class CodeGuard:
    """The lock and the used codes of the users whose codes a request checks (module doc).

    Args:
        engine: an AUTOCOMMIT engine (``RateLimiter.engine``).
        free: wrong codes in a row before the lock (``TWO_STEP_LOCK_FREE_FAILURES``).
        base_s: the first lock, seconds (``TWO_STEP_LOCK_BASE_S``), doubled by each further
            wrong code up to ``max_s`` (``TWO_STEP_LOCK_MAX_S``).
    """

    engine: AsyncEngine
    free: int
    base_s: int
    max_s: int

    @classmethod
    def of(cls, limiter: RateLimiter, settings: Settings) -> CodeGuard:
        """The guard of the app's ``settings``, on the rate limits' autocommit engine."""
        return cls(
            limiter.engine,
            settings.two_step.lock_free_failures,
            settings.two_step.lock_base_s,
            settings.two_step.lock_max_s,
        )

    @asynccontextmanager
    async def attempt(
        self, user_id: uuid.UUID, code: str, *, counts: bool = True
    ) -> AsyncIterator[None]:
        """Have Cognito check ``code`` of the user ``user_id`` inside this block, which
        raises ``CodeMismatchError`` for a wrong code. ``counts``: a wrong code counts
        towards the lock, and a running lock refuses (the user's authenticator is being
        checked; the set-up checks a new one, whose key the caller was just shown). A right
        code, counted or not, resets the count.

        Raises:
            RateLimited: the user's code step is locked ('Too many wrong codes from an
                authenticator app. Please wait ... and try again.', with Retry-After).
            TwoStepCodeUsed: the code was accepted (or is being checked) already and could
                still be accepted.
        """
        now = datetime.now(UTC)
        if counts:
            await self._claim_failure(user_id, now)
        until = usable_until(now)
        try:
            await self._claim_code(user_id, code, until, now)
        except TwoStepCodeUsed:
            if counts:
                await self._give_back(user_id, now)
            raise
        try:
            yield
        except BaseException as exc:
            await self._let_go(user_id, code, until)
            if counts and not isinstance(exc, CodeMismatchError):
                await self._give_back(user_id, now)
            raise
        await self._clear(user_id)

    def _until(self, now: datetime, failures: ColumnElement[int]) -> ColumnElement[datetime]:
        """Until when ``failures`` wrong codes counted at ``now`` lock the code step (SQL,
        evaluated in the upsert). Not locked is ``NOT_BLOCKED``, not ``now``, as for the
        password backoff."""
        exponent = func.greatest(failures - self.free, 0)
        lock_s = func.least(self.max_s, self.base_s * func.power(2, func.least(exponent, 30)))
        locked = literal(now) + func.make_interval(0, 0, 0, 0, 0, 0, lock_s)
        return case((failures < self.free, literal(NOT_BLOCKED)), else_=locked)

    async def _claim_failure(self, user_id: uuid.UUID, now: datetime) -> None:
        failures = TwoStepLock.failures + 1
        statement = (
            insert(TwoStepLock)
            .values(
                user_id=user_id,
                failures=1,
                locked_until=self._until(now, literal(1)),
                updated_at=now,
            )
            .on_conflict_do_update(
                index_elements=[TwoStepLock.user_id],
                set_={
                    "failures": failures,
                    "locked_until": self._until(now, failures),
                    "updated_at": now,
                },
                where=TwoStepLock.locked_until <= now,
            )
            .returning(TwoStepLock.failures)
        )
        async with self.engine.connect() as connection:
            if (await connection.execute(statement)).scalar_one_or_none() is not None:
                return
            locked_until = await connection.scalar(
                select(TwoStepLock.locked_until).where(TwoStepLock.user_id == user_id)
            )
        left_s = max(1, int((locked_until or now).timestamp() - now.timestamp() + 0.999))
        raise RateLimited(
            "Too many wrong codes from an authenticator app. Please wait "
            f"{_wait_text(left_s)} and try again.",
            retry_after_s=left_s,
        )

    async def _give_back(self, user_id: uuid.UUID, claimed_at: datetime) -> None:
        failures = func.greatest(TwoStepLock.failures - 1, 0)
        async with self.engine.connect() as connection:
            await connection.execute(
                update(TwoStepLock)
                .where(TwoStepLock.user_id == user_id)
                .values(
                    failures=failures,
                    locked_until=func.least(
                        TwoStepLock.locked_until, self._until(claimed_at, failures)
                    ),
                )
            )

    async def _clear(self, user_id: uuid.UUID) -> None:
        async with self.engine.connect() as connection:
            await connection.execute(delete(TwoStepLock).where(TwoStepLock.user_id == user_id))

    async def _claim_code(
        self, user_id: uuid.UUID, code: str, until: datetime, now: datetime
    ) -> None:
        statement = (
            insert(TwoStepUsedCode)
            .values(user_id=user_id, code=code, usable_until=until)
            .on_conflict_do_update(
                index_elements=[TwoStepUsedCode.user_id, TwoStepUsedCode.code],
                set_={"usable_until": until},
                where=TwoStepUsedCode.usable_until <= now,
            )
            .returning(TwoStepUsedCode.code)
        )
        async with self.engine.connect() as connection:
            await _forget_stale(connection, user_id, now)
            if (await connection.execute(statement)).scalar_one_or_none() is None:
                raise TwoStepCodeUsed()

    async def _let_go(self, user_id: uuid.UUID, code: str, until: datetime) -> None:
        """Undo :meth:`_claim_code`: Cognito did not accept the code."""
        async with self.engine.connect() as connection:
            await connection.execute(
                delete(TwoStepUsedCode).where(
                    TwoStepUsedCode.user_id == user_id,
                    TwoStepUsedCode.code == code,
                    TwoStepUsedCode.usable_until == until,
                )
            )


async def _forget_stale(connection: AsyncConnection, user_id: uuid.UUID, now: datetime) -> None:
    """Delete the user's codes no clock could show any more (a few rows at most)."""
    await connection.execute(
        delete(TwoStepUsedCode).where(
            TwoStepUsedCode.user_id == user_id,
            TwoStepUsedCode.usable_until <= now,
        )
    )
