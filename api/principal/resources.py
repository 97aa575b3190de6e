"""What every request of one app shares, built once at start-up and closed at shutdown.

``api.app.web``'s lifespan builds one :class:`Resources` from the settings, keeps it as
``app.state.resources`` for the app's life and closes it with :meth:`Resources.aclose`; the
route dependencies (``api.principal.dependencies``) read its fields through one typed accessor
(:func:`resources_of`). Tests and the dev stack read the same object:
``resources_of(app).sessionmaker``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from starlette.applications import Starlette

from api.adapters.cognito import CognitoClient
from api.adapters.dns_resolver import DnsResolver
from api.adapters.stripe import StripeGateway
from api.kernel.config import Settings
from api.kernel.http.client_address import Network
from api.kernel.secretbox import KeyRing
from api.principal.tokens import AccessTokenVerifier
from api.ratelimit import Quota, RateLimiter, Throttle


@dataclass(frozen=True, slots=True, kw_only=True)
class Resources:
    """The app's long-lived objects (one set per process).

    ``engine``/``sessionmaker``: the pool and the request transactions (api/kernel/db.py);
    ``read_engine``/``read_sessionmaker``: the same pool in autocommit, for safe requests and
    the reads outside the request's transaction; ``side_engine``: a small pool of its own in
    autocommit, for the single writes that commit on their own while the request may hold a
    connection of the main pool (never waiting on that pool, so they cannot deadlock with it);
    ``rate_limiter``: the PostgreSQL limiter on ``side_engine`` (each hit commits at once);
    ``throttles``: its limits by action;
    ``quotas``: its amounts per window by name (the metering records per account);
    ``trusted_networks``: ``TRUSTED_PROXIES`` parsed once (api/kernel/http/client_address.py).
    """

    settings: Settings
    engine: AsyncEngine
    read_engine: AsyncEngine
    side_engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    read_sessionmaker: async_sessionmaker[AsyncSession]
    cognito: CognitoClient
    stripe: StripeGateway
    dns_resolver: DnsResolver
    key_ring: KeyRing
    rate_limiter: RateLimiter
    throttles: Mapping[str, Throttle]
    quotas: Mapping[str, Quota]
    token_verifier: AccessTokenVerifier
    trusted_networks: tuple[Network, ...]

    async def replace_pools(self) -> None:
        """Close every pooled connection, so the next checkout opens a fresh one: after
        PostgreSQL dropped the connections (a restart, a failover), those of both pools are
        dead (api/kernel/http/db_faults.py)."""
        await self.engine.dispose()
        await self.side_engine.dispose()

    async def aclose(self) -> None:
        """Close the vendor clients, then the pools."""
        await self.cognito.aclose()
        await self.stripe.aclose()
        await self.replace_pools()


def resources_of(app: Starlette) -> Resources:
    """The resources of ``app`` (``request.app`` in a dependency).

    Raises:
        AttributeError: the app's lifespan has not run (no resources yet).
    """
    resources: Resources = app.state.resources
    return resources
