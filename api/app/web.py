"""The FastAPI application factory.

``uvicorn --factory api.app.web:create_app`` builds the app from the environment. The database
engine, vendor clients, key ring and limiter are created once in the lifespan as one
:class:`~api.principal.resources.Resources` (``app.state.resources``) and closed on shutdown. The
dev stack
builds this same app and adds its stand-ins (``devstack.app.create_dev_app``); nothing
here knows about them.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import structlog
from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

from api.adapters.cognito import CognitoClient, CognitoError, CognitoUnavailable
from api.adapters.dns_resolver import DnsResolver
from api.adapters.stripe import StripeGateway
from api.app import features
from api.app.spa import mount_spa
from api.identity.directory.errors import ScimErrorsMiddleware
from api.identity.directory.router import SCIM_BASE
from api.identity.sign_in.app_client import (
    AppClientUnreadable,
    UnsafeAppClient,
    check_app_client,
    check_passkey_client,
)
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_read_sessionmaker, create_sessionmaker
from api.kernel.errors import install_error_handlers
from api.kernel.http.body_limits import BodyLimitMiddleware
from api.kernel.http.db_faults import DatabaseFaultsMiddleware
from api.kernel.http.http_methods import HeadAsGetMiddleware
from api.kernel.http.logging import RequestContextMiddleware, configure_logging
from api.kernel.http.metrics import (
    HttpMetrics,
    HttpMetricsMiddleware,
    PoolCollector,
    process_registry,
)
from api.kernel.http.openapi_info import document_settings
from api.kernel.http.security_headers import SecurityHeaders, SecurityHeadersMiddleware
from api.kernel.http.vendor_budget import VendorBudgetMiddleware
from api.keys.service import key_ring
from api.principal.dependencies import declare_permissions, document_access_tokens
from api.principal.resources import Resources
from api.principal.tokens import AccessTokenVerifier
from api.ratelimit import Catalogue, RateLimiter

# Every /web/* body is a small form; the features declare their larger ones (a metering batch,
# a Stripe event, a SAML metadata document: api/app/features.py).
WEB_MAX_BODY_BYTES = 64 * 1024


class _ConsoleApp(FastAPI):
    """FastAPI with the security headers as the outermost layer, outside Starlette's
    ServerErrorMiddleware and body limit, so an unexpected 500 or a 413 carries them too.
    ``security_headers`` is set by :func:`create_app` before the first request."""

    security_headers: SecurityHeaders

    def openapi(self) -> dict[str, Any]:
        """The contract, with how each operation treats access tokens
        (``api.principal.dependencies.document_access_tokens``)."""
        if self.openapi_schema is None:
            document_access_tokens(super().openapi())
        return super().openapi()

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeadersMiddleware(super().build_middleware_stack(), self.security_headers)


VendorEventHooks = Callable[[FastAPI], dict[str, list[Any]]]


log = structlog.get_logger(__name__)


async def _check_app_client(cognito: CognitoClient, *, development: bool) -> None:
    """Refuse to start with an app client that allows a way around the sign-in policy
    (``api.identity.sign_in.app_client``), or with one that cannot be read (unreachable, a wrong
    client
    id, no DescribeUserPoolClient permission): its settings are then unknown, so the check
    fails closed. Only in development (``ENVIRONMENT=development``, the stand-ins) is an
    unreadable client logged (``app_client_unchecked``, a warning) and the start goes on.
    Each refusal is one error line of the log (``app_client_unreadable``,
    ``app_client_unsafe``) before the lifespan fails (``api.app.commands.serve`` exits 3).

    Raises:
        UnsafeAppClient: the client allows a password flow of its own or the admin scope.
        AppClientUnreadable: outside development, DescribeUserPoolClient failed.
    """
    try:
        client = await cognito.describe_app_client()
    except (CognitoError, CognitoUnavailable) as exc:
        if development:
            log.warning("app_client_unchecked", error=str(exc))
            return
        log.error("app_client_unreadable", client_id=cognito.client_id, error=str(exc))
        raise AppClientUnreadable(
            f"Cognito app client {cognito.client_id} could not be read "
            f"(DescribeUserPoolClient: {exc}); the API does not start without checking it. "
            "Check COGNITO_USER_POOL_ID, COGNITO_CLIENT_ID, the endpoint and that the API's "
            "role may call cognito-idp:DescribeUserPoolClient."
        ) from exc
    try:
        check_app_client(client)
    except UnsafeAppClient as exc:
        log.error("app_client_unsafe", error=str(exc))
        raise
    if cognito.passkey_client_id:
        await _check_passkey_client(cognito, development=development)


async def _check_passkey_client(cognito: CognitoClient, *, development: bool) -> None:
    """The same for the passkey sign-in's confidential app client, when one is configured
    (``check_passkey_client``: a secret, ``USER_AUTH`` and refresh only).

    Raises:
        UnsafeAppClient: the client has no secret or allows more.
        AppClientUnreadable: outside development, DescribeUserPoolClient failed.
    """
    try:
        client = await cognito.describe_app_client(cognito.passkey_client_id)
    except (CognitoError, CognitoUnavailable) as exc:
        if development:
            log.warning("app_client_unchecked", error=str(exc))
            return
        log.error("app_client_unreadable", client_id=cognito.passkey_client_id, error=str(exc))
        raise AppClientUnreadable(
            f"Cognito passkey app client {cognito.passkey_client_id} could not be read "
            f"(DescribeUserPoolClient: {exc}); the API does not start without checking it. "
            "Check COGNITO_PASSKEY_CLIENT_ID."
        ) from exc
    try:
        check_passkey_client(client)
    except UnsafeAppClient as exc:
        log.error("app_client_unsafe", error=str(exc))
        raise


def open_resources(
    settings: Settings,
    limits: Catalogue,
    *,
    cognito_event_hooks: dict[str, list[Any]] | None = None,
) -> Resources:
    """Create the pool and the vendor clients of ``settings`` (nothing is contacted yet), with
    the features' ``limits``; :meth:`Resources.aclose` closes them.

    Raises:
        KeyRingError: API keys are sealed with the key ring (README "API keys"), so without a
            usable one the app does not start; the error names the setting.
    """
    engine = create_engine(settings.database_url, settings.db_pool_size)
    read_engine = engine.execution_options(isolation_level="AUTOCOMMIT")
    # A pool of its own: a request may hold a connection of the main pool (its transaction)
    # while it counts an attempt; were the counters on that pool, as many such requests at
    # once as it has connections would each wait for a second one until the pool timed out.
    side_engine = create_engine(
        settings.database_url, settings.db_side_pool_size
    ).execution_options(isolation_level="AUTOCOMMIT")
    cognito = CognitoClient.from_settings(settings, event_hooks=cognito_event_hooks)
    return Resources(
        settings=settings,
        engine=engine,
        read_engine=read_engine,
        side_engine=side_engine,
        sessionmaker=create_sessionmaker(engine),
        read_sessionmaker=create_read_sessionmaker(read_engine),
        cognito=cognito,
        stripe=StripeGateway(
            api_key=settings.stripe.secret_key.get_secret_value(),
            api_base=settings.stripe.api_base,
            timeout_s=settings.stripe.timeout_s,
            webhook_secret=settings.stripe.webhook_secret.get_secret_value(),
        ),
        dns_resolver=DnsResolver.from_settings(settings),
        key_ring=key_ring(settings),
        rate_limiter=RateLimiter(side_engine),
        throttles=limits.throttles,
        quotas=limits.quotas,
        token_verifier=AccessTokenVerifier(
            cognito=cognito,
            issuer=settings.cognito.issuer,
            client_id=settings.cognito.client_id,
            other_client_ids=(settings.cognito.passkey_client_id,),
            refetch_interval_s=settings.cognito.jwks_refetch_interval_s,
        ),
        trusted_networks=settings.trusted_networks,
    )


def _pools(app: FastAPI) -> dict[str, Any]:
    """The app's database pools by name, once its lifespan has opened them."""
    resources: Resources | None = getattr(app.state, "resources", None)
    if resources is None:
        return {}
    return {"main": resources.engine.pool, "side": resources.side_engine.pool}


def _freeze_heap() -> None:
    """Keep what start-up allocated (alive as long as the process) out of the collector's
    scans, whose full collections over it showed as p99 spikes in bench/api.py, and collect
    the young generation less often (a request allocates a few thousand objects, nearly all
    freed by reference counting)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)


def _add_middleware(app: FastAPI, settings: Settings, metrics: HttpMetrics) -> None:
    """The HTTP layers around the routers, innermost first (the security headers wrap them
    all: :class:`_ConsoleApp`)."""
    # Innermost: each request's time budget for vendor calls, then the database-fault retry
    # (a retried request gets a fresh budget).
    app.add_middleware(VendorBudgetMiddleware, seconds=settings.vendor_budget_s)
    app.add_middleware(DatabaseFaultsMiddleware)
    # Then HEAD as GET, still inside the access log and CORS, which see the real method.
    app.add_middleware(HeadAsGetMiddleware)
    if settings.cors_allowed_origins:
        # The SPA on another origin (a CDN) sends the bearer token in a header, and the
        # sign-in cookies (refresh token, OAuth flow) with credentials: allowed for the
        # configured origins only (api/identity/sign_in/cookies.py).
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_allowed_origins,
            allow_credentials=True,
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            # If-None-Match and ETag: the SPA's conditional reads (api/kernel/http/etags.py);
            # Content-Disposition: the file names of the CSV exports.
            allow_headers=["Authorization", "Content-Type", "If-None-Match"],
            expose_headers=["ETag", "Content-Disposition"],
            max_age=600,
        )
    app.add_middleware(
        BodyLimitMiddleware, default_bytes=WEB_MAX_BODY_BYTES, by_prefix=features.body_limits()
    )
    # The SCIM service's refusals made by the layers above (413, 503, no such path or
    # method, a defect's 500) in SCIM's error format (RFC 7644 3.12), like its routes' own.
    app.add_middleware(ScimErrorsMiddleware, prefix=SCIM_BASE)
    app.add_middleware(RequestContextMiddleware)
    # Outermost of ours: every request is counted and timed, a 413 or a CORS preflight too.
    app.add_middleware(HttpMetricsMiddleware, metrics=metrics)


def create_app(
    settings: Settings | None = None,
    *,
    cognito_event_hooks: VendorEventHooks | None = None,
    extra_routers: Sequence[APIRouter] = (),
) -> FastAPI:
    """Build the app.

    Args:
        settings: defaults to ``Settings()`` read from the environment.
        cognito_event_hooks: builds httpx event hooks for the Cognito adapter from the app
            (the dev stack's mailbox records what Cognito would email this way).
        extra_routers: included after the API's routers and before the SPA's catch-all
            (the dev stack's stand-ins).

    Raises:
        ValueError: unsafe settings (:meth:`Settings.check`), before anything is mounted;
            features that declare a name twice (:func:`api.app.features.check`).
        TypeError: a throttle's setting is not a whole number.
        LookupError: a route counts a throttle no feature declares, or declares no
            permission.
    """
    settings = settings or Settings()
    settings.check()
    features.check()
    limits = features.catalogue(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        settings.check_database()
        configure_logging(settings.log_format, settings.log_level)
        hooks = cognito_event_hooks(app) if cognito_event_hooks else None
        resources = open_resources(settings, limits, cognito_event_hooks=hooks)
        try:
            await _check_app_client(
                resources.cognito, development=settings.environment == "development"
            )
        except BaseException:
            await resources.aclose()
            raise
        app.state.resources = resources
        _freeze_heap()
        try:
            yield
        finally:
            await resources.aclose()

    app = _ConsoleApp(
        # FastAPI's native OpenTelemetry support looks for configured providers on every
        # request; this service configures none (structured logs are its telemetry), so the
        # check is turned off once here. Set these to True when providers are added.
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
        title="Console API",
        version="1",
        summary="Account console of the AI browser-test service (SPEC 7).",
        lifespan=lifespan,
        **document_settings(),
        docs_url="/docs" if settings.environment == "development" else None,
        redoc_url=None,
    )
    # Beside the lifespan's resources, the app's state holds only its settings (known before
    # the lifespan runs, for the dev stack's stand-ins), the drain flag and the metrics.
    app.state.settings = settings
    app.state.draining = (
        False  # True from SIGTERM on: /readyz answers 503 (api/app/commands/serve.py)
    )
    # Swagger UI (development only) loads a CDN script and runs an inline one: no CSP there.
    docs = [app.docs_url, app.swagger_ui_oauth2_redirect_url] if app.docs_url else []
    app.security_headers = SecurityHeaders.from_settings(
        settings, unprotected_paths=[path for path in docs if path]
    )
    # The request and pool metrics (api/kernel/http/metrics.py), served on a port of their own by
    # python -m api.app.commands.serve --metrics-port.
    app.state.metrics = HttpMetrics(process_registry())
    app.state.metrics.registry.register(PoolCollector(lambda: _pools(app)))
    _add_middleware(app, settings, app.state.metrics)
    install_error_handlers(app)
    routers = features.routers()
    for router in routers:
        declare_permissions(router)  # every operation names its permission (api/principal/roles.py)
    for router in (*routers, *extra_routers):
        app.include_router(router)
    if settings.web_dist:
        mount_spa(app, Path(settings.web_dist))
    return app
