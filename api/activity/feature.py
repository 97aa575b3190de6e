"""The Activity page (the audit log, its filters and CSV): what it brings to the app and the
worker (api/feature.py), the log's retention included (README "Audit log": the log is
written by every change, api/audit, and kept for ``AUDIT_RETENTION_DAYS``)."""

from __future__ import annotations

import structlog

from api.activity.router import router
from api.audit.retention import retain
from api.feature import Feature, PeriodicTask
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)


async def audit_retention(resources: JobResources) -> None:
    """One pass of the audit log's retention (api/audit/retention.py): the coming month
    partitions created, the expired ones dropped."""
    done = await retain(resources.engine, resources.settings.audit.retention_days)
    log.info("audit_retention", created=done.created, dropped=done.dropped)


FEATURE = Feature(
    name="activity",
    routers=(router,),
    periodic=(PeriodicTask("audit_retention", "AUDIT_RETENTION_CRON", audit_retention),),
)
