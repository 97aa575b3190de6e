"""One time budget per request for all its calls to vendors (README "Configuration (production)", a
hung vendor).

A request may call Cognito or Stripe several times (registration: three Cognito calls); each
call has its own timeout, but a hung vendor must not hold a user for the sum of them. The
request's budget (``VENDOR_BUDGET_S``, 7 s) is set when it starts; every vendor call runs
inside what is left of it and fails as "unavailable" (503 with the usual message) when it is
spent. Compensating steps after a failure get a budget of their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

# A loop.time() deadline; None outside a request (scripts, the dev stack's bootstrap).
_deadline: ContextVar[float | None] = ContextVar("vendor_deadline", default=None)


@contextmanager
def vendor_budget(seconds: float) -> Iterator[None]:
    """Give the vendor calls made inside this block ``seconds`` in total."""
    token = _deadline.set(asyncio.get_running_loop().time() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


@asynccontextmanager
async def within_budget() -> AsyncIterator[None]:
    """Run one vendor call inside what is left of the current budget (no limit outside one).

    Raises:
        TimeoutError: the budget ran out before the call finished (it is cancelled).
    """
    deadline = _deadline.get()
    if deadline is None:
        yield
        return
    async with asyncio.timeout_at(deadline):
        yield


class VendorBudgetMiddleware:
    """Pure ASGI middleware: every HTTP request gets ``seconds`` for its vendor calls.

    It sets the deadline itself rather than through :func:`vendor_budget`: it runs on every
    request, and a generator-based context manager costs more than the two calls it wraps.
    """

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = _deadline.set(asyncio.get_running_loop().time() + self.seconds)
        try:
            await self.app(scope, receive, send)
        finally:
            _deadline.reset(token)
