"""Liveness and readiness probes (not part of the /web contract)."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """The database answers; 503 with the envelope otherwise."""
    try:
        async with request.app.state.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception:
        return JSONResponse(
            {"code": "DatabaseUnavailable", "message": "The database is not reachable"},
            status_code=503,
        )
    return JSONResponse({"status": "ready"})
