"""Serve the built SPA (``web/dist``) from the API process (development and single-box deploys).

Hashed assets are cached for a year; every other non-API path gets ``index.html`` so the
client-side router handles it. Unknown ``/web/*`` paths still get the JSON 404.
"""

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from api.errors import NotFound

_API_PREFIXES = ("web/", "dev/", "oauth2/", "webhooks/", "metering/")


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

    @app.get("/{path:path}", include_in_schema=False)
    def spa(path: str) -> FileResponse:  # sync: file checks run in the threadpool
        if path.startswith(_API_PREFIXES) or not index.is_file():
            raise NotFound()
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(dist.resolve()):
            return FileResponse(candidate)
        return FileResponse(index, headers={"Cache-Control": "no-cache"})
