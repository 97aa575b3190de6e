"""What every request of one app shares, built once at start-up and closed at shutdown, and
what the job worker's tasks share (:class:`JobResources`).

``api.app.web``'s lifespan builds one :class:`Resources` from the settings, keeps it as
``app.state.resources`` for the app's life and closes it with :meth:`Resources.aclose`; the
route dependencies (``api.principal.dependencies``) read its fields through one typed accessor
(:func:`resources_of`). Tests and the dev stack read the same object:
``resources_of(app).sessionmaker``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from starlette.applications import Starlette

from api.adapters.cognito import CognitoClient
from api.adapters.dns_resolver import DnsResolver
from api.adapters.stripe import StripeGateway
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.kernel.http.client_address import Network
from api.kernel.secretbox import KeyRing
from api.principal.tokens import AccessTokenVerifier
from api.ratelimit import Quota, QuotaLimits, RateLimiter, Throttle, ThrottleLimits


@dataclass(frozen=True, slots=True, kw_only=True)
class Resources:
    """The app's long-lived objects (one set per process).

    ``engine``/``sessionmaker``: the pool and the request transactions (api/kernel/db.py);
    ``read_engine``/``read_sessionmaker``: the same pool in autocommit, for safe requests and
    the reads outside the request's transaction; ``side_engine``: a small pool of its own in
    autocommit, for the single writes that commit on their own while the request may hold a
    connection of the main pool (never waiting on that pool, so they cannot deadlock with it);
    ``rate_limiter``: the PostgreSQL limiter on ``side_engine`` (each hit commits at once);
    ``throttles``: the limits of every throttle the features declare, by declaration;
    ``quotas``: the same of their quotas (the metering records per account);
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
    throttles: Mapping[Throttle, ThrottleLimits]
    quotas: Mapping[Quota, QuotaLimits]
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


class JobResources:
    """What the features' job and periodic tasks use (api/feature.py; built by the worker,
    api/app/worker.py), each opened on first use (a worker that runs only emails opens none)
    and closed by :meth:`aclose`: a database pool of the API's kind (asyncpg) of ``pool_size``
    connections, the Stripe, Cognito and DNS clients of ``settings``."""

    def __init__(self, settings: Settings, *, pool_size: int = 2) -> None:
        self.settings = settings
        self.pool_size = pool_size

    @functools.cached_property
    def engine(self) -> AsyncEngine:
        """A webhook job or a periodic pass holds one connection at a time (one transaction
        per event or item)."""
        return create_engine(self.settings.database_url, self.pool_size)

    @functools.cached_property
    def sessionmaker(self) -> async_sessionmaker[AsyncSession]:
        return create_sessionmaker(self.engine)

    @functools.cached_property
    def stripe(self) -> StripeGateway:
        return StripeGateway(
            api_key=self.settings.stripe.secret_key.get_secret_value(),
            api_base=self.settings.stripe.api_base,
            timeout_s=self.settings.stripe.timeout_s,
        )

    @functools.cached_property
    def cognito(self) -> CognitoClient:
        return CognitoClient.from_settings(self.settings)

    @functools.cached_property
    def dns_resolver(self) -> DnsResolver:
        return DnsResolver.from_settings(self.settings)

    async def aclose(self) -> None:
        """Close what was opened."""
        opened = vars(self)
        if "stripe" in opened:
            await self.stripe.aclose()
        if "cognito" in opened:
            await self.cognito.aclose()
        if "engine" in opened:
            await self.engine.dispose()


def resources_of(app: Starlette) -> Resources:
    """The resources of ``app`` (``request.app`` in a dependency).

    Raises:
        AttributeError: the app's lifespan has not run (no resources yet).
    """
    resources: Resources = app.state.resources
    return resources
