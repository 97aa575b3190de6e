"""Usage (the metering intake, alerts, limits, the breakdown and its export): what it brings
to the app and the worker (api/feature.py), including the daily deletion of hourly rollups
past the retention."""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from api.feature import BodyLimit, Feature, PeriodicTask
from api.principal.resources import JobResources
from api.usage import service
from api.usage.router import router, web_router
from api.usage.throttles import METERING, METERING_RECORDS

METERING_MAX_BODY_BYTES = 1024 * 1024
"""A metering batch: up to 1000 records of about 200 bytes."""

log = structlog.get_logger(__name__)


async def usage_hourly_retention(resources: JobResources) -> None:
    """Delete the hourly rollups past the retention (``service.prune_hourly_rollups``)."""
    async with resources.sessionmaker() as db, db.begin():
        deleted = await service.prune_hourly_rollups(db, datetime.now(UTC))
    log.info("usage_hourly_retention", deleted=deleted)


FEATURE = Feature(
    name="usage",
    routers=(router, web_router),
    throttles=(METERING,),
    quotas=(METERING_RECORDS,),
    body_limits=(BodyLimit("/metering/", METERING_MAX_BODY_BYTES),),
    periodic=(
        PeriodicTask(
            "usage_hourly_retention", "USAGE_HOURLY_RETENTION_CRON", usage_hourly_retention
        ),
    ),
)
