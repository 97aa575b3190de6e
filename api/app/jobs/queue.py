"""What is in the job queue (README "Background work": watching the queue): jobs per queue and
status, and how long the oldest job that is due has waited. Read by ``python -m
api.app.commands.queue``
and by the worker's metrics (api/app/jobs/metrics.py)."""

from __future__ import annotations

from dataclasses import dataclass

import procrastinate

STATUSES = ("todo", "doing", "succeeded", "failed", "cancelled", "aborted")
"""procrastinate's job statuses, in the order a job goes through them."""

# A due job waits since it became due: its retry time (``scheduled_at``), or else when it was
# deferred (the ``deferred`` event; job ids grow with time, so the smallest unscheduled id of a
# queue is its oldest). The aggregates in the sub-select belong to the outer query.
_OLDEST_WAITING = """
SELECT due.queue_name,
       extract(epoch FROM now() - least(
           min(due.scheduled_at),
           (SELECT e.at FROM procrastinate_events e
             WHERE e.job_id = min(due.id) FILTER (WHERE due.scheduled_at IS NULL)
               AND e.type = 'deferred')
       ))::float AS waited_s
  FROM procrastinate_jobs due
 WHERE due.status = 'todo' AND (due.scheduled_at IS NULL OR due.scheduled_at <= now())
 GROUP BY due.queue_name
"""


@dataclass(frozen=True)
class QueueState:
    """``jobs``: queue -> status (:data:`STATUSES`) -> number of jobs; ``oldest_waiting_s``:
    queue -> seconds the oldest due job of the queue has waited (queues with none due are
    absent)."""

    jobs: dict[str, dict[str, int]]
    oldest_waiting_s: dict[str, float]


async def queue_state(app: procrastinate.App) -> QueueState:
    """Read the queue through ``app``'s open connector (two queries).

    Raises only what the database raises.
    """
    jobs = {
        row["name"]: {status: int(row[status]) for status in STATUSES}
        for row in await app.job_manager.list_queues_async()
    }
    rows = await app.connector.execute_query_all_async(_OLDEST_WAITING)
    waited = {row["queue_name"]: max(0.0, float(row["waited_s"] or 0.0)) for row in rows}
    return QueueState(jobs=jobs, oldest_waiting_s=waited)
