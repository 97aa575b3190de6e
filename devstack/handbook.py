"""The handbook (``site/``, built by tools/handbook.py) served by the dev stack at ``/handbook/``,
on the console's own port (``/docs`` is FastAPI's Swagger UI in development).

The pages are static files of our own. MkDocs Material's pages run small inline scripts and the
API reference (Redocly CLI's page, scripts and styles inlined) more, so the SPA's policy, which
allows no inline script, would leave them blank: they get :data:`HANDBOOK_POLICY`, which allows
inline scripts and styles of this origin and nothing from elsewhere. Only the dev stack mounts
this; the production app never serves the handbook (GitHub Pages publishes it).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.routing import Mount, Route

from tools.handbook import SITE

PATH = "/handbook"
HANDBOOK_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; "
    "form-action 'none'; frame-ancestors 'none'"
)


class _HandbookFiles(StaticFiles):
    """``site/`` as static files (``index.html`` for a folder), revalidated on every load
    (a rebuild shows at once) and with :data:`HANDBOOK_POLICY` as their Content-Security-Policy
    (the security-headers middleware keeps a policy a response sets itself)."""

    def file_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Content-Security-Policy"] = HANDBOOK_POLICY
        return response


def mount_handbook(app: FastAPI, site: Path = SITE) -> None:
    """Serve ``site`` at ``/handbook/`` (``/handbook`` redirects there), ahead of the SPA's
    catch-all route. A site not built (yet) answers 404 there."""

    def to_folder(request: Request) -> RedirectResponse:
        return RedirectResponse(f"{PATH}/")

    app.router.routes[0:0] = [
        Route(PATH, to_folder, methods=["GET", "HEAD"], include_in_schema=False),
        Mount(PATH, app=_HandbookFiles(directory=site, html=True, check_dir=False)),
    ]
