"""The daily upkeep of SAML connections as a periodic task (README "SAML single sign-on",
"Background work"): every hour one worker (procrastinate defers each tick once, whatever the
number of workers) fetches again the metadata of the connections last fetched a day ago or
more, and defers the emails about signing certificates that expire within 30 days
(api/sso/saml_refresh.py)."""

from __future__ import annotations

import procrastinate
import structlog

from api.config import Settings
from api.jobs.stalled import MAINTENANCE_QUEUE
from api.sso.saml_refresh import run_once

log = structlog.get_logger(__name__)


def register(app: procrastinate.App, settings: Settings) -> None:
    """Add the hourly SAML upkeep, on the database, pool and network of ``settings``."""

    @app.periodic(cron="23 * * * *", periodic_id="saml_upkeep")
    @app.task(name="saml_connection_upkeep", queue=MAINTENANCE_QUEUE, queueing_lock="saml_upkeep")
    async def saml_connection_upkeep(timestamp: int) -> None:
        """The periodic task (``timestamp``: the tick, epoch seconds)."""
        report = await run_once(settings)
        if report.changed or report.failed or report.notices:
            log.info(
                "saml_upkeep",
                changed=report.changed,
                unchanged=report.unchanged,
                failed=report.failed,
                notices=report.notices,
            )
