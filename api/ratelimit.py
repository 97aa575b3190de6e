"""Fixed-window rate limiting held in PostgreSQL, so every API replica sees the same counts.

The ``limits`` library (the usual choice) has no PostgreSQL storage, and the API has no other
shared store, so each attempt is one atomic upsert on ``rate_limit_counter``::

    INSERT ... VALUES (key, window_start, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counter.hits + 1
    RETURNING hits

Concurrent attempts on any replica serialise on the row, so none is lost. A limit on an
amount rather than on attempts (usage records per minute) adds the amount instead of 1
(:meth:`RateLimiter.spend`). Every refusal says when the window ends (``Retry-After``).

Counts are written on the app's autocommit engine, outside the request's transaction: an
attempt that fails (and rolls its request back) still counts. When a key opens a new window,
rows of windows that ended a day ago are deleted, which keeps the table small without a cron
job.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import MappingProxyType

from sqlalchemy import ColumnElement, Delete, bindparam, case, delete, func, literal, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from api.kernel.config import Settings
from api.kernel.errors import ProviderRefused, RateLimited, WrongCredential
from api.kernel.http.client_address import limit_key
from api.models import RateLimitCounter, SignInBackoff


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``max_hits`` attempts per key in each window of ``window_s`` seconds."""

    name: str
    max_hits: int
    window_s: int


class RateLimiter:
    """Counts attempts per key in PostgreSQL.

    Args:
        engine: an AUTOCOMMIT engine with a pool of its own (the app's ``side_engine``,
            api/principal/resources.py): each hit commits at once, and never waits on the pool of
            the
            request transactions.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @property
    def engine(self) -> AsyncEngine:
        """The autocommit engine the counts are written on."""
        return self._engine

    async def hit(self, limit: Limit, subject: str, now: datetime | None = None) -> int:
        """Count one attempt of ``subject`` against ``limit``; returns the window's count.

        Raises:
            RateLimited: the count is above ``limit.max_hits`` (HTTP 429).
        """
        now = now or datetime.now(UTC)
        hits = await self.record(limit, subject, now)
        if hits > limit.max_hits:
            raise _refusal(limit, now)
        return hits

    async def spend(
        self, limit: Limit, subject: str, amount: int, message: str, now: datetime | None = None
    ) -> int:
        """Count ``amount`` units (e.g. usage records) of ``subject`` against ``limit``, whose
        ``max_hits`` is then a number of units per window; returns the window's total.

        A refused amount is given back (one more statement, on refusal only), so a refused
        batch counts nothing and what is left of the window stays usable.

        Raises:
            RateLimited: the total would exceed ``limit.max_hits`` (HTTP 429); ``message``
                is its text, with the seconds to wait appended.
        """
        now = now or datetime.now(UTC)
        total = await self.record(limit, subject, now, amount)
        if total > limit.max_hits:
            await self.release(limit, subject, now, amount)
            wait_s = _seconds_left(limit, now)
            raise RateLimited(
                f"{message} Please wait {wait_s} seconds and try again.", retry_after_s=wait_s
            )
        return total

    async def release(
        self, limit: Limit, subject: str, now: datetime | None = None, amount: int = 1
    ) -> None:
        """Give back one attempt counted with :meth:`hit` in the window of ``now`` (an attempt
        that turned out not to count, e.g. a successful sign-in), or ``amount`` units counted
        with :meth:`spend`."""
        window_start, key = _window(limit, subject, now)
        async with self._engine.connect() as connection:
            await connection.execute(
                update(RateLimitCounter)
                .where(
                    RateLimitCounter.key == key,
                    RateLimitCounter.window_start == window_start,
                    RateLimitCounter.hits >= amount,
                )
                .values(hits=RateLimitCounter.hits - amount)
            )

    async def record(
        self, limit: Limit, subject: str, now: datetime | None = None, amount: int = 1
    ) -> int:
        """Count one attempt (or ``amount`` units) of ``subject`` without refusing it; returns
        the window's count."""
        window_start, key = _window(limit, subject, now)
        params = {"key": key, "window_start": window_start, "amount": amount}
        async with self._engine.connect() as connection:
            hits = int((await connection.execute(_COUNT, params)).scalar_one())
            if hits == amount:  # the window's first count
                await connection.execute(_expired(window_start - timedelta(seconds=86_400)))
        return hits


# Built once: building the statement on every call cost about as much client CPU as running
# it (0.7 against 0.4 ms a call, measured beside bench/metering.py), and the metering intake
# counts three limits per batch.
_COUNT = (
    insert(RateLimitCounter)
    .values(key=bindparam("key"), window_start=bindparam("window_start"), hits=bindparam("amount"))
    .on_conflict_do_update(
        index_elements=[RateLimitCounter.key, RateLimitCounter.window_start],
        set_={"hits": RateLimitCounter.hits + bindparam("amount")},
    )
    .returning(RateLimitCounter.hits)
)


def _window(limit: Limit, subject: str, now: datetime | None) -> tuple[datetime, str]:
    """The start of the current window of ``limit`` and the counter key of ``subject``."""
    epoch_s = int((now or datetime.now(UTC)).timestamp())
    return (
        datetime.fromtimestamp(epoch_s - epoch_s % limit.window_s, UTC),
        f"{limit.name}:{subject}",
    )


def _seconds_left(limit: Limit, now: datetime) -> int:
    """Whole seconds until the window of ``now`` ends (at least 1): the ``Retry-After``."""
    epoch_s = now.timestamp()
    return max(1, math.ceil(limit.window_s - epoch_s % limit.window_s))


def _refusal(limit: Limit, now: datetime) -> RateLimited:
    return RateLimited(
        f"Too many attempts. Please wait {_wait_text(limit.window_s)} and try again.",
        retry_after_s=_seconds_left(limit, now),
    )


def _expired(before: datetime) -> Delete:
    """Delete the rows of windows that started before ``before`` (a day back: longer than any
    window we use); ``ix_rate_limit_counter_window_start`` finds them."""
    return delete(RateLimitCounter).where(RateLimitCounter.window_start < before)


def _wait_text(window_s: int) -> str:
    if window_s < 120:
        return f"{window_s} seconds"
    return f"{window_s // 60} minutes"


DAY_S = 86_400
# ``blocked_until`` of failures that impose no wait: the epoch, not the time of the attempt,
# so that of two attempts at once the one that read the clock first and counts second does
# not find a wait of 0 s still running ('Please wait 1 seconds').
NOT_BLOCKED = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff of failed attempts per (email, address key), in ``sign_in_backoff``.

    After ``free`` consecutive failures the next attempt waits ``base_s`` seconds, and each
    further failure doubles the wait, up to ``max_s``. An attempt is counted as a failure
    before it is tried (one atomic upsert that refuses while a wait runs), so a parallel burst
    gets no more tries than a sequence; :meth:`give_back` undoes it when it did not fail, and
    :meth:`clear` forgets the failures after a success. Failures older than a day are
    forgotten.

    Args:
        engine: an AUTOCOMMIT engine, as :class:`RateLimiter`'s.
    """

    engine: AsyncEngine
    free: int
    base_s: int
    max_s: int

    def _wait_s(self, failures: ColumnElement[int]) -> ColumnElement[float]:
        """The wait after ``failures`` failures, seconds (SQL, evaluated in the upsert)."""
        exponent = func.greatest(failures - self.free, 0)
        doubled = func.least(self.max_s, self.base_s * func.power(2, func.least(exponent, 30)))
        return case((failures < self.free, 0), else_=doubled)

    def _until(self, now: datetime, failures: ColumnElement[int]) -> ColumnElement[datetime]:
        waited = literal(now) + func.make_interval(0, 0, 0, 0, 0, 0, self._wait_s(failures))
        return case((failures < self.free, literal(NOT_BLOCKED)), else_=waited)

    async def claim(self, email: str, address_key: str, now: datetime) -> None:
        """Count an attempt of ``email`` from ``address_key`` as a failure, unless a wait runs.

        Raises:
            RateLimited: the wait of earlier failures has not ended ('Too many failed
                attempts. Please wait ... and try again.', with the time left).
        """
        stale = SignInBackoff.updated_at < now - timedelta(seconds=DAY_S)
        failures = case((stale, 1), else_=SignInBackoff.failures + 1)
        statement = (
            insert(SignInBackoff)
            .values(
                email=email,
                address_key=address_key,
                failures=1,
                blocked_until=self._until(now, literal(1)),
                updated_at=now,
            )
            .on_conflict_do_update(
                index_elements=[SignInBackoff.email, SignInBackoff.address_key],
                set_={
                    "failures": failures,
                    "blocked_until": self._until(now, failures),
                    "updated_at": now,
                },
                where=SignInBackoff.blocked_until <= now,
            )
            .returning(SignInBackoff.failures)
        )
        async with self.engine.connect() as connection:
            claimed = (await connection.execute(statement)).scalar_one_or_none()
            if claimed == 1:
                await connection.execute(
                    delete(SignInBackoff).where(
                        SignInBackoff.updated_at < now - timedelta(seconds=DAY_S)
                    )
                )
            if claimed is not None:
                return
            blocked_until = (
                await connection.execute(
                    select(SignInBackoff.blocked_until).where(
                        SignInBackoff.email == email, SignInBackoff.address_key == address_key
                    )
                )
            ).scalar_one_or_none()
        left_s = max(1, int((blocked_until or now).timestamp() - now.timestamp() + 0.999))
        raise RateLimited(
            f"Too many failed attempts. Please wait {_left_text(left_s)} and try again."
        )

    async def give_back(self, email: str, address_key: str, claimed_at: datetime) -> None:
        """Undo a :meth:`claim` made at ``claimed_at`` whose attempt did not fail (the
        provider was unreachable, a policy refused it before the password was tried)."""
        failures = func.greatest(SignInBackoff.failures - 1, 0)
        async with self.engine.connect() as connection:
            await connection.execute(
                update(SignInBackoff)
                .where(SignInBackoff.email == email, SignInBackoff.address_key == address_key)
                .values(
                    failures=failures,
                    blocked_until=func.least(
                        SignInBackoff.blocked_until, self._until(claimed_at, failures)
                    ),
                )
            )

    async def clear(self, email: str, address_key: str) -> None:
        """Forget the failures of ``email`` from ``address_key`` (it signed in)."""
        async with self.engine.connect() as connection:
            await connection.execute(
                delete(SignInBackoff).where(
                    SignInBackoff.email == email, SignInBackoff.address_key == address_key
                )
            )


def _left_text(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    return f"{-(-seconds // 60)} minutes"


@dataclass(frozen=True, slots=True)
class PasswordAttempts:
    """The password attempts of one request (README "Sign-in and abuse limits"):

    - per client address, every attempt counts (password spraying across many emails);
    - per (email, client address), failed attempts back off exponentially
      (:class:`Backoff`): guessing one user's password from one place slows down, and
      nobody elsewhere is held up by it;
    - per email, failed attempts from all addresses together have a loose ceiling (guessing
      from many addresses). Only failures count, so signing in often never locks a user out.
      Every attempt is counted before the password is tried (atomic upserts), so a parallel
      burst cannot pass a limit, and given back when it did not fail;
    - reset requests count per (email, address) and per recipient per day, limits of their
      own (each one emails the user), never against signing in.

    Client addresses are counted by their ``limit_key`` (an IPv6 client by its /64), against
    ``per_address``: the limits of the password attempts' throttle
    (``api.principal.dependencies.PASSWORD_ATTEMPTS``).
    """

    limiter: RateLimiter
    settings: Settings
    client_address: str
    per_address: ThrottleLimits

    def _limit(self, name: str, max_hits: int) -> Limit:
        return Limit(name, max_hits, self.settings.sign_in.limit_window_s)

    @property
    def _address_key(self) -> str:
        return limit_key(self.client_address)

    def _backoff(self) -> Backoff:
        return Backoff(
            self.limiter.engine,
            self.settings.sign_in.backoff_free_failures,
            self.settings.sign_in.backoff_base_s,
            self.settings.sign_in.backoff_max_s,
        )

    async def _count_address(self) -> None:
        await self.per_address.hit(self.limiter, self.client_address)

    @asynccontextmanager
    async def attempt(self, subject: str) -> AsyncIterator[None]:
        """Try ``subject``'s password (or code) inside this block.

        The address, the subject's ceiling and its backoff from this address are counted
        first; the subject's counts are given back unless the block raises
        ``ProviderRefused`` (a wrong password, a wrong code) or ``WrongCredential`` (a wrong
        recovery code), and its backoff from this address is cleared when the block
        succeeds.

        Raises:
            RateLimited: too many attempts from this address, a wait of this subject's
                failures from this address, or too many failures for this subject overall.
        """
        per_email = self._limit("sign-in:email", self.settings.sign_in.limit_per_email)
        backoff = self._backoff()
        now = datetime.now(UTC)
        await self._count_address()
        try:
            await self.limiter.hit(per_email, subject, now)
            await backoff.claim(subject, self._address_key, now)
        except RateLimited:
            await self.limiter.release(per_email, subject, now)  # a refusal is no guess
            raise
        try:
            yield
        except (ProviderRefused, WrongCredential):
            raise
        except BaseException:
            await self.limiter.release(per_email, subject, now)
            await backoff.give_back(subject, self._address_key, now)
            raise
        await self.limiter.release(per_email, subject, now)
        await backoff.clear(subject, self._address_key)

    async def reset_requested(self, subject: str) -> None:
        """Count a password-reset request for ``subject`` from this address (and the
        address), and the email it sends to ``subject`` (per day, whoever asks).

        Raises:
            RateLimited: too many requests from this address, for this subject from this
                address, or emails to this subject today.
        """
        sign_in = self.settings.sign_in
        await self._count_address()
        await self.limiter.hit(
            self._limit("reset:email+ip", sign_in.reset_limit_per_email_and_address),
            f"{subject}|{self._address_key}",
        )
        await self.limiter.hit(
            Limit("reset:recipient", sign_in.reset_emails_per_recipient_per_day, DAY_S), subject
        )


HOUR_S = 3600
MINUTE_S = 60


def _whole_number(settings: Settings, name: str) -> int:
    value = settings.value(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} is not a whole number, so it cannot be a limit")
    return value


def _known(*names: str | None) -> None:
    unknown = sorted(name for name in names if name is not None and name not in Settings.names())
    if unknown:
        raise ValueError(f"no setting is read from {', '.join(unknown)} (api/kernel/config.py)")


@dataclass(frozen=True, slots=True)
class Throttle:
    """An action limited per client address, per account, or both (README "Sign-in and
    abuse limits": registration, invitations, payment-method changes, metering batches;
    sending or entering an email verification code; the invoice history; the reads and
    lookups that ask a vendor or reveal a secret; SCIM requests; every password attempt).
    Every attempt counts, in fixed windows.

    A declaration: the feature whose routes count it declares it (``api/<domain>/throttles.py``,
    listed in its ``feature.py``), naming its limits by the environment variables of their
    settings, so the dev stack finds every per-address limit to lift and the app reads them
    once at start (:meth:`limits`). Routes depend on the object itself
    (``api.principal.dependencies``: ``AddressThrottle(REGISTRATION)``...).

    Args:
        name: the counters' key prefix (``<name>:ip``, ``<name>:account``), unique among the
            features' throttles and quotas.
        window_s: the window, seconds, or the setting that holds it (e.g.
            ``"SIGN_IN_LIMIT_WINDOW_S"``).
        per_address: the setting of the attempts per client address and window, or None.
        per_account: the setting of the attempts per account and window, or None.

    Raises:
        ValueError: no limit at all, or a name that is no setting (at import).
    """

    name: str
    window_s: int | str
    per_address: str | None = None
    per_account: str | None = None

    def __post_init__(self) -> None:
        if self.per_address is None and self.per_account is None:
            raise ValueError(f"throttle {self.name!r} limits nothing")
        _known(*self.settings)

    @property
    def settings(self) -> tuple[str, ...]:
        """The environment variables of the settings it reads."""
        named = (self.window_s, self.per_address, self.per_account)
        return tuple(name for name in named if isinstance(name, str))

    def limits(self, settings: Settings) -> ThrottleLimits:
        """Its limits under ``settings``.

        Raises:
            TypeError: a named setting is not a whole number.
        """
        window_s = self.window_s
        return ThrottleLimits(
            name=self.name,
            per_address=_whole_number(settings, self.per_address) if self.per_address else None,
            per_account=_whole_number(settings, self.per_account) if self.per_account else None,
            window_s=window_s if isinstance(window_s, int) else _whole_number(settings, window_s),
        )


@dataclass(frozen=True, slots=True)
class ThrottleLimits:
    """A :class:`Throttle`'s limits under one process's settings: attempts per client
    address and per account (None: not limited that way) in each window of ``window_s``."""

    name: str
    per_address: int | None
    per_account: int | None
    window_s: int

    async def hit(
        self, limiter: RateLimiter, address: str, account_id: uuid.UUID | None = None
    ) -> None:
        """Count one attempt from the client ``address`` (counted by its ``limit_key``: an
        IPv6 client by its /64) and, when given, for ``account_id``.

        Raises:
            RateLimited: over either limit (HTTP 429).
        """
        if self.per_address is not None:
            await limiter.hit(
                Limit(f"{self.name}:ip", self.per_address, self.window_s), limit_key(address)
            )
        if account_id is not None:
            await self.hit_account(limiter, account_id)

    async def hit_account(self, limiter: RateLimiter, account_id: uuid.UUID) -> None:
        """Count one attempt for ``account_id`` only: an action with no client address of its
        own to count (a directory's request comes from its identity provider's servers, which
        many accounts share). Nothing when the throttle has no account limit.

        Raises:
            RateLimited: over ``per_account`` in this window (HTTP 429).
        """
        if self.per_account is not None:
            await limiter.hit(
                Limit(f"{self.name}:account", self.per_account, self.window_s), str(account_id)
            )


@dataclass(frozen=True, slots=True)
class Quota:
    """An amount (``unit``: e.g. "usage records") an account may send per window of
    ``window_s``, beside the :class:`Throttle` on its requests: a cap on the work, however it
    is batched. Declared like a throttle, its limit named by the environment variable of its
    setting (``per_account``).

    Raises:
        ValueError: ``per_account`` is no setting (at import).
    """

    name: str
    unit: str
    window_s: int
    per_account: str

    def __post_init__(self) -> None:
        _known(self.per_account)

    @property
    def settings(self) -> tuple[str, ...]:
        """The environment variables of the settings it reads."""
        return (self.per_account,)

    def limits(self, settings: Settings) -> QuotaLimits:
        """Its limit under ``settings``.

        Raises:
            TypeError: the setting is not a whole number.
        """
        return QuotaLimits(
            self.name, self.unit, _whole_number(settings, self.per_account), self.window_s
        )


@dataclass(frozen=True, slots=True)
class QuotaLimits:
    """A :class:`Quota`'s limit under one process's settings: ``per_account`` units per
    window of ``window_s``."""

    name: str
    unit: str
    per_account: int
    window_s: int

    async def spend(self, limiter: RateLimiter, account_id: uuid.UUID, amount: int) -> None:
        """Count ``amount`` units of the account; a refused amount counts nothing.

        Raises:
            RateLimited: over ``per_account`` in this window (HTTP 429, with Retry-After).
        """
        per = "minute" if self.window_s == MINUTE_S else _wait_text(self.window_s)
        await limiter.spend(
            Limit(f"{self.name}:account", self.per_account, self.window_s),
            str(account_id),
            amount,
            f"This account may send at most {self.per_account} {self.unit} per {per}.",
        )


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The limits of every declared throttle and quota under one process's settings, by
    declaration (``api.principal.resources.Resources``: read by the route dependencies)."""

    throttles: Mapping[Throttle, ThrottleLimits]
    quotas: Mapping[Quota, QuotaLimits]

    @classmethod
    def of(
        cls, settings: Settings, throttles: Iterable[Throttle], quotas: Iterable[Quota] = ()
    ) -> Catalogue:
        """The catalogue of ``throttles`` and ``quotas`` under ``settings``.

        Raises:
            ValueError: two declarations share a name (their counters would be one).
            TypeError: a named setting is not a whole number.
        """
        throttles, quotas = tuple(throttles), tuple(quotas)
        names = Counter([t.name for t in throttles] + [q.name for q in quotas])
        shared = sorted(name for name, count in names.items() if count > 1)
        if shared:
            raise ValueError(f"throttles or quotas declared twice: {', '.join(shared)}")
        return cls(
            throttles=MappingProxyType({t: t.limits(settings) for t in throttles}),
            quotas=MappingProxyType({q: q.limits(settings) for q in quotas}),
        )


async def count_invitation(limiter: RateLimiter, settings: Settings, recipient: str) -> None:
    """Count an invitation email to ``recipient`` (lowercased), from whichever account sends
    it: one mailbox gets at most ``INVITATIONS_PER_RECIPIENT_PER_DAY`` a UTC day.

    Raises:
        RateLimited: the recipient had its share today.
    """
    await limiter.hit(
        Limit("invitation:recipient", settings.membership.invitations_per_recipient_per_day, DAY_S),
        recipient,
    )
