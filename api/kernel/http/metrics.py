"""Prometheus metrics of the API (README "Background work", "Watching it"), with prometheus-client.

- :class:`HttpMetricsMiddleware` (pure ASGI, the outermost of the app's own layers) counts every
  request by method, route template (``/web/users/{user_id}``, never the raw path: bounded
  labels) and status, times it into a histogram by method and route, and keeps the number in
  flight. An exception that escapes the app counts as the 500 Starlette answers for it.
- :class:`PoolCollector` reads the SQLAlchemy pools at scrape time: connections in use and the
  pool's size, per pool (``main``, ``side``).
- :func:`serve_metrics` serves a registry at ``/metrics`` on a port of its own, in a thread
  (``python -m api.app.commands.serve --metrics-port``, ``python -m api.app.commands.worker
  --metrics-port``):
  never on the public port, so the proxy and the ingress, which route only that one, never
  expose it. ``/readyz`` there answers the worker's readiness when given one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    make_wsgi_app,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy.pool import QueuePool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

UNMATCHED = "unmatched"
"""The route label of a request no route matched (a 404 before any route)."""

# Seconds: from the cheapest reads (~1 ms) past the vendor budget (7 s) and the proxy's 30 s.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def process_registry() -> CollectorRegistry:
    """A registry of one process's metrics, starting with prometheus-client's standard ones:
    ``process_*`` (CPU seconds, resident memory, open files, start time), ``python_gc_*`` and
    ``python_info``."""
    registry = CollectorRegistry()
    for collector in (PROCESS_COLLECTOR, GC_COLLECTOR, PLATFORM_COLLECTOR):
        registry.register(collector)
    return registry


class HttpMetrics:
    """The API's request metrics, in ``registry`` (one per app).

    - ``console_http_requests_total{method, route, status}``: requests answered;
    - ``console_http_request_duration_seconds{method, route}``: time from the request's
      arrival to the end of its answer, seconds;
    - ``console_http_requests_in_flight``: requests being answered now.
    """

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.requests = Counter(
            "console_http_requests",
            "HTTP requests answered, by method, route template and status.",
            ("method", "route", "status"),
            registry=registry,
        )
        self.duration = Histogram(
            "console_http_request_duration_seconds",
            "Time to answer an HTTP request, by method and route template, seconds.",
            ("method", "route"),
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.in_flight = Gauge(
            "console_http_requests_in_flight",
            "HTTP requests being answered now.",
            registry=registry,
        )
        # The labelled children, found once per label set (``labels()`` costs a lock and a
        # tuple per call; the sets are bounded by the routes).
        self._counted: dict[tuple[str, str, int], Any] = {}
        self._timed: dict[tuple[str, str], Any] = {}

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one answered request and its duration."""
        counted = self._counted.get((method, route, status))
        if counted is None:
            counted = self.requests.labels(method, route, str(status))
            self._counted[(method, route, status)] = counted
        counted.inc()
        timed = self._timed.get((method, route))
        if timed is None:
            timed = self.duration.labels(method, route)
            self._timed[(method, route)] = timed
        timed.observe(seconds)


class HttpMetricsMiddleware:
    """Pure ASGI middleware feeding :class:`HttpMetrics` (see the module docstring)."""

    def __init__(self, app: ASGIApp, metrics: HttpMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        in_flight = self.metrics.in_flight
        in_flight.inc()

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            in_flight.dec()
            route = scope.get("route")
            self.metrics.observe(
                scope["method"],
                route.path if route is not None else UNMATCHED,
                status,
                time.perf_counter() - started,
            )


class PoolCollector(Collector):
    """``console_db_pool_connections{pool, state}`` at scrape time: ``in_use`` (checked out)
    and ``size`` (the most the pool holds: the pools have no overflow) of each pool that
    ``pools()`` returns by name (none before the app's lifespan has opened them)."""

    def __init__(self, pools: Callable[[], Mapping[str, QueuePool]]) -> None:
        self._pools = pools

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "console_db_pool_connections",
            "Database connections of the process's pools: in use, and the pool's size.",
            labels=("pool", "state"),
        )
        for name, pool in self._pools().items():
            family.add_metric((name, "in_use"), pool.checkedout())
            family.add_metric((name, "size"), pool.size())
        yield family


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not logged (Prometheus asks every few seconds)."""


@dataclass
class MetricsServer:
    """A running metrics endpoint (:func:`serve_metrics`)."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        """The port it listens on (the one asked, or the one the system chose for 0)."""
        return int(self.server.server_port)

    def close(self) -> None:
        """Stop serving and release the port."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def serve_metrics(
    registry: CollectorRegistry,
    *,
    host: str,
    port: int,
    ready: Callable[[], bool] | None = None,
) -> MetricsServer:
    """Serve ``registry`` in Prometheus' text format at ``GET /metrics`` on ``host:port``
    (0: a free port), from a daemon thread; with ``ready``, ``GET /readyz`` answers 200 when
    it returns True and 503 otherwise. Any other path is a 404.

    Raises:
        OSError: the port cannot be bound.
    """
    metrics = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if path == "/metrics":
            return metrics(environ, start_response)
        if path == "/readyz" and ready is not None:
            ok = ready()
            start_response("200 OK" if ok else "503 Service Unavailable", [])
            return [b"ready\n" if ok else b"not ready\n"]
        start_response("404 Not Found", [])
        return [b"not found\n"]

    server = make_server(host, port, app, server_class=_Server, handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
    thread.start()
    return MetricsServer(server, thread)
