"""Jobs a dead worker left running go back to the queue (README "Background work").

A worker that is killed (SIGKILL, a lost node) leaves its job ``doing``; procrastinate does not
take such a job up again by itself. At every tick of ``JOB_STALLED_CRON`` (every minute) one
worker (a periodic task: procrastinate defers each tick once, whatever the number of workers)
finds the ``doing`` jobs of workers whose heartbeat (every 10 s) is older than
``JOB_STALLED_AFTER_S`` (:data:`STALLED_AFTER_S`) and retries them now. The
retried email then carries the same ``Message-ID`` as the attempt that may have left.

A stall is one attempt of the job, as a failure is: it is retried only while its task's retry
strategy allows another attempt (procrastinate's ``RetryStrategy.max_attempts``, the rule its
worker applies after an error), so a job that kills its worker again and again ends ``failed``
instead of going back to the queue for ever. A task without retries (the periodic ones: their
next tick runs again) fails at its first stall, which also frees its ``lock`` for that tick.

Two passes may find the same stalled job (a tick run by hand beside the periodic one): the one
that comes second finds it no longer ``doing`` and leaves it to the first.
"""

from __future__ import annotations

import procrastinate
import structlog
from procrastinate.exceptions import ConnectorException
from procrastinate.jobs import Job, Status

log = structlog.get_logger(__name__)

STALLED_AFTER_S = 60.0
"""Seconds without a heartbeat after which a worker is taken for dead (its heartbeat comes
every 10 s), unless ``JOB_STALLED_AFTER_S`` says otherwise."""

MAINTENANCE_QUEUE = "maintenance"
"""The queue of the engine's own upkeep."""


def _may_retry(app: procrastinate.App, job: Job) -> bool:
    """Whether ``job``'s task allows one more attempt after the ``job.attempts`` retries it
    has had (procrastinate's ``RetryStrategy``: none without a strategy, no limit when its
    ``max_attempts`` is None, else fewer retries than ``max_attempts``)."""
    task = app.tasks.get(job.task_name)
    strategy = task.retry_strategy if task is not None else None
    if strategy is None:
        return False
    max_attempts = getattr(strategy, "max_attempts", None)
    return max_attempts is None or job.attempts < max_attempts


async def retry_stalled(
    app: procrastinate.App, *, stalled_after_s: float = STALLED_AFTER_S, queue: str | None = None
) -> int:
    """Put back in the queue, due now, every job (of ``queue`` only, when given) left
    ``doing`` by a worker silent for ``stalled_after_s`` seconds, while its task allows another
    attempt (module docstring); a job that used its attempts is finished ``failed``. Returns
    how many were put back."""
    retried = 0
    stalled = await app.job_manager.get_stalled_jobs(
        seconds_since_heartbeat=stalled_after_s, queue=queue
    )
    for job in stalled:
        again = _may_retry(app, job)
        try:
            if again:
                await app.job_manager.retry_job(job)
            else:
                await app.job_manager.finish_job(job, status=Status.FAILED, delete_job=False)
        except ConnectorException:
            if await _still_doing(app, job):
                raise
            continue  # another pass took it first
        if again:
            log.warning("job_stalled_retried", job_id=job.id, task=job.task_name)
            retried += 1
        else:
            log.error(
                "job_stalled_failed", job_id=job.id, task=job.task_name, attempts=job.attempts
            )
    return retried


async def _still_doing(app: procrastinate.App, job: Job) -> bool:
    """Whether ``job`` is still ``doing`` (procrastinate refuses to retry or finish a job in
    any other status, and raises)."""
    found = list(await app.job_manager.list_jobs_async(id=job.id))
    return bool(found) and found[0].status == Status.DOING.value


def register(
    app: procrastinate.App, *, cron: str = "* * * * *", stalled_after_s: float = STALLED_AFTER_S
) -> None:
    """Add the stalled-job retry to ``app``, at every tick of ``cron`` (``JOB_STALLED_CRON``)
    for workers silent ``stalled_after_s`` seconds (``JOB_STALLED_AFTER_S``)."""

    @app.periodic(cron=cron, periodic_id="retry_stalled")
    @app.task(
        name="retry_stalled_jobs", queue=MAINTENANCE_QUEUE, queueing_lock="retry_stalled_jobs"
    )
    async def retry_stalled_jobs(timestamp: int) -> None:
        """The periodic task (``timestamp``: the tick, epoch seconds)."""
        await retry_stalled(app, stalled_after_s=stalled_after_s)
