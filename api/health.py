"""Liveness and readiness probes (not part of the /web contract)."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from api.errors import DatabaseUnavailable

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """The database answers; 503 with the envelope otherwise. Tried twice: the first attempt
    after PostgreSQL restarted may take a pooled connection that died with it (and retires
    the pool's old connections), so the probe is ready as soon as the database is."""
    for _ in range(2):
        try:
            async with request.app.state.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except Exception:  # noqa: S112 - any failure is "not ready"; the next try or a 503
            continue
        return JSONResponse({"status": "ready"})
    return JSONResponse(
        {"code": "DatabaseUnavailable", "message": DatabaseUnavailable.default_message},
        status_code=503,
    )
