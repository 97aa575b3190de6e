"""Liveness and readiness probes (not part of the /web contract).

``/healthz``: the process is up (Kubernetes' liveness probe; never touches the database, so a
database outage does not restart every replica). ``/readyz``: this replica should get traffic
(readiness probe, load balancers): 503 with the error envelope while it shuts down
(``ShuttingDown``, from SIGTERM on: ``api/app/commands/serve.py``), while the database is
unreachable
(``DatabaseUnavailable``) or while its schema is behind this release (``SchemaBehind``, until
``python -m api.app.commands.migrate`` has run: ``api/kernel/migrations.py``).
"""

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse

from api.kernel.errors import DatabaseUnavailable
from api.kernel.migrations import schema_state

router = APIRouter(include_in_schema=False)

SHUTTING_DOWN = "This replica is shutting down; another one takes its requests."


def start_draining(app: FastAPI) -> None:
    """Turn ``/readyz`` to 503 ``ShuttingDown`` for good (the replica got SIGTERM)."""
    app.state.draining = True


def _not_ready(code: str, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=503)


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """Ready, or 503 ``ShuttingDown`` / ``DatabaseUnavailable`` / ``SchemaBehind``.

    One query (the schema's revision, which doubles as the database ping), tried twice: the
    first attempt after PostgreSQL restarted may take a pooled connection that died with it
    (and retires the pool's old connections), so the probe is ready as soon as the database is.
    """
    if getattr(request.app.state, "draining", False):
        return _not_ready("ShuttingDown", SHUTTING_DOWN)
    for _ in range(2):
        try:
            async with request.app.state.resources.engine.connect() as connection:
                state = await schema_state(connection)
        except Exception:  # noqa: S112 - any failure is "not ready"; the next try or a 503
            continue
        if state.behind:
            return _not_ready("SchemaBehind", state.reason)
        return JSONResponse({"status": "ready"})
    return _not_ready("DatabaseUnavailable", DatabaseUnavailable.default_message)
