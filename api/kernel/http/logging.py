"""Structured logs (structlog) with a request id on every line.

``RequestContextMiddleware`` is the one pure ASGI middleware (no BaseHTTPMiddleware overhead)
for both: it takes ``X-Request-ID`` from the caller or makes one, binds it to the log context,
returns it in the response header and writes one access line per request (method, path,
status, duration_ms). It runs on every request: the id is 32 random hex digits made straight
from ``os.urandom`` (what ``uuid.uuid4().hex`` gives, without building a UUID object).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

import orjson
import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def configure_logging(fmt: str = "json", level: str = "INFO") -> None:
    """One line per event on stderr: JSON (orjson, as structlog's performance guide
    recommends) in production, coloured key=value with ``console`` in development."""
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
    ]
    logger_factory: Any
    if fmt == "console":
        processors.append(structlog.dev.ConsoleRenderer())
        logger_factory = structlog.PrintLoggerFactory(sys.stderr)
    else:
        processors.append(structlog.processors.JSONRenderer(serializer=orjson.dumps))
        logger_factory = structlog.BytesLoggerFactory(sys.stderr.buffer)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=logger_factory,
        cache_logger_on_first_use=True,
    )


access_log = structlog.get_logger("access")


class RequestContextMiddleware:
    """Bind a request id to the log context and log one access line per HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = ""
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                request_id = value.decode("latin-1")[:64]
                break
        request_id = request_id or os.urandom(16).hex()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode("latin-1")),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            access_log.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status,
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )
            structlog.contextvars.clear_contextvars()
