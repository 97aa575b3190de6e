"""HTTP method semantics that FastAPI's routes leave out (RFC 9110; README "Headers").

- HEAD works wherever GET does (RFC 9110 §9.3.2): FastAPI's ``@router.get`` routes answer only
  GET, so ``HEAD /login`` was a 405. :class:`HeadAsGetMiddleware` answers HEAD with the GET
  response's status and headers and no body, without adding HEAD operations to openapi.json.
- Every 405 lists every method of the path in ``Allow`` (RFC 9110 §15.5.6): Starlette's 405
  names only the methods of the first route whose path matched, so when GET and PUT of one path
  are separate routes it said ``GET``. :func:`allowed_methods` asks every route.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PROBED_METHODS = ("DELETE", "GET", "OPTIONS", "PATCH", "POST", "PUT")


class HeadAsGetMiddleware:
    """Pure ASGI middleware: route HEAD requests as GET and drop the response body.

    The status and headers are the GET response's (``Content-Length`` too, as RFC 9110 allows
    for HEAD); body messages are replaced by one empty final body. Add it before the logging and
    CORS middleware (innermost) so they still see the request's real method.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_without_body(message: Message) -> None:
            if message["type"] == "http.response.start":
                await send(message)
            elif not message.get("more_body", False):
                # The last body message (or a pathsend/zerocopysend of a file): end empty.
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        as_get = {**scope, "method": "GET"}
        try:
            await self.app(as_get, receive, send_without_body)
        finally:
            # The route that answered, for the layers outside (the request metrics).
            if "route" in as_get:
                scope["route"] = as_get["route"]


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> list[str]:
    """The methods some route answers at ``scope``'s path, sorted, with HEAD wherever GET is.

    Each method of :data:`PROBED_METHODS` is tried against every route (FastAPI nests included
    routers, so the route list is not flat): a method is allowed when a route fully matches.

    Args:
        routes: the app's routes (``app.router.routes``); mounts are skipped (they match every
            method; a mount's own 405 brings its ``Allow``, e.g. StaticFiles' ``GET, HEAD``).
        scope: the HTTP request's ASGI scope; only its path (and root path) is used.

    Returns:
        e.g. ``["GET", "HEAD", "PUT"]``; empty when no route has this path.
    """
    methods: set[str] = set()
    candidates = [route for route in routes if not isinstance(route, Mount)]
    for method in PROBED_METHODS:
        probe = {**scope, "method": method}
        if any(route.matches(probe)[0] is Match.FULL for route in candidates):
            methods.add(method)
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)
