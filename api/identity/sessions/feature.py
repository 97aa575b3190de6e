"""Sign-in sessions (README "Sessions"): what the feature brings to the app and the worker
(api/feature.py): the Sessions routes and the deletion of sessions inactive for 90 days."""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from api.feature import Feature, PeriodicTask
from api.identity.sessions import service
from api.identity.sessions.router import others_router, router
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)


async def session_retention(resources: JobResources) -> None:
    """Delete the sessions inactive for 90 days (``service.prune``)."""
    async with resources.sessionmaker() as db, db.begin():
        deleted = await service.prune(db, datetime.now(UTC))
    log.info("session_retention", deleted=deleted)


FEATURE = Feature(
    name="sessions",
    routers=(router, others_router),
    periodic=(PeriodicTask("session_retention", "SESSION_RETENTION_CRON", session_retention),),
)
