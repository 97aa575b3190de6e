"""Jobs a dead worker left running go back to the queue (README "Background work").

A worker that is killed (SIGKILL, a lost node) leaves its job ``doing``; procrastinate does not
take such a job up again by itself. Every minute one worker (a periodic task: procrastinate
defers each tick once, whatever the number of workers) finds the ``doing`` jobs of workers
whose heartbeat (every 10 s) is older than :data:`STALLED_AFTER_S` and retries them now. The
retried email then carries the same ``Message-ID`` as the attempt that may have left.
"""

from __future__ import annotations

import procrastinate
import structlog

log = structlog.get_logger(__name__)

STALLED_AFTER_S = 60.0
"""Seconds without a heartbeat after which a worker is taken for dead (its heartbeat comes
every 10 s)."""

MAINTENANCE_QUEUE = "maintenance"
"""The queue of the engine's own upkeep."""


async def retry_stalled(
    app: procrastinate.App, *, stalled_after_s: float = STALLED_AFTER_S, queue: str | None = None
) -> int:
    """Put back in the queue, due now, every job (of ``queue`` only, when given) left
    ``doing`` by a worker silent for ``stalled_after_s`` seconds; returns how many."""
    retried = 0
    stalled = await app.job_manager.get_stalled_jobs(
        seconds_since_heartbeat=stalled_after_s, queue=queue
    )
    for job in stalled:
        await app.job_manager.retry_job(job)
        log.warning("job_stalled_retried", job_id=job.id, task=job.task_name)
        retried += 1
    return retried


def register(app: procrastinate.App) -> None:
    """Add the minutely stalled-job retry to ``app``."""

    @app.periodic(cron="* * * * *", periodic_id="retry_stalled")
    @app.task(
        name="retry_stalled_jobs", queue=MAINTENANCE_QUEUE, queueing_lock="retry_stalled_jobs"
    )
    async def retry_stalled_jobs(timestamp: int) -> None:
        """The periodic task (``timestamp``: the tick, epoch seconds)."""
        await retry_stalled(app)
