"""Serve the built SPA (``web/dist``) from the API process (development and single-box deploys).

Hashed assets (``/assets/*``) are cached for a year; every other file (``index.html``,
``/config.js`` with the run-time configuration, the favicon) is served ``no-cache``, so a
deploy shows at once; every other non-API path gets ``index.html`` so the client-side router
handles it. The fallback route does not even match API paths (``/web/*``,
``/metering/*``...), so an unknown one is the JSON 404 and a 405 there lists only the API's own
methods in ``Allow``, not the SPA's GET.
"""

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.routing import Match
from starlette.types import Scope

from api.kernel.errors import NotFound

_REVALIDATE = {"Cache-Control": "no-cache"}
_API_PREFIXES = ("/web/", "/dev/", "/oauth2/", "/webhooks/", "/metering/", "/assets/")


class _SpaRoute(APIRoute):
    """A route that never matches an API path."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get("path", "").startswith(_API_PREFIXES):
            return Match.NONE, {}
        return super().matches(scope)


class _ImmutableStatic(StaticFiles):
    def file_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
        return response


def mount_spa(app: FastAPI, dist: Path) -> None:
    """Serve ``dist/assets`` and fall back to ``dist/index.html`` for client routes."""
    index = dist / "index.html"
    if (dist / "assets").is_dir():
        app.mount("/assets", _ImmutableStatic(directory=dist / "assets"), name="assets")

    def spa(path: str) -> FileResponse:  # sync: file checks run in the threadpool
        if not index.is_file():
            raise NotFound()
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(dist.resolve()):
            return FileResponse(candidate, headers=_REVALIDATE)
        return FileResponse(index, headers=_REVALIDATE)

    app.router.add_api_route(
        "/{path:path}",
        spa,
        methods=["GET"],
        include_in_schema=False,
        route_class_override=_SpaRoute,
    )
