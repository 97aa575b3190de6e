"""Prometheus metrics of the job worker (README "Background work"), served by
``python -m api.app.commands.worker --metrics-port`` with its readiness
(api/kernel/http/metrics.py).

From the queue, read every :data:`REFRESH_S` seconds by each worker (the same figures from every
worker: aggregate them with ``max``):

- ``console_jobs{queue, status}``: jobs per queue and status (``failed``: tried for the last
  time and failed, kept ``JOB_RETENTION_DAYS``);
- ``console_job_queue_oldest_waiting_seconds{queue}``: how long the oldest due job has waited
  (0 when none is due).

From this worker's own runs (:meth:`WorkerMetrics.middleware`):

- ``console_job_attempts_total{task, outcome}``: attempts that ``succeeded`` or raised an
  ``error`` (a retried email counts one error per failed try);
- ``console_job_duration_seconds{task}``: how long an attempt ran.

The worker is ready while its last read of the queue is fresh (it reaches the database) and
it is not stopping.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import procrastinate
import structlog
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from api.app.jobs.queue import QueueState, queue_state

log = structlog.get_logger(__name__)

REFRESH_S = 10.0
"""Seconds between two reads of the queue."""

STALE_AFTER_S = 3 * REFRESH_S
"""A worker whose last good read is older than this is not ready."""

# An email takes milliseconds to a second; a reconciliation, minutes.
DURATION_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)


class _QueueCollector(Collector):
    def __init__(self, metrics: WorkerMetrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[GaugeMetricFamily]:
        state = self._metrics.state
        jobs = GaugeMetricFamily(
            "console_jobs", "Jobs in the queue, by queue and status.", labels=("queue", "status")
        )
        waited = GaugeMetricFamily(
            "console_job_queue_oldest_waiting_seconds",
            "Seconds the oldest due job of the queue has waited (0: none due).",
            labels=("queue",),
        )
        if state is not None:
            for queue, statuses in sorted(state.jobs.items()):
                for status, count in statuses.items():
                    jobs.add_metric((queue, status), count)
                waited.add_metric((queue,), state.oldest_waiting_s.get(queue, 0.0))
        yield jobs
        yield waited


class WorkerMetrics:
    """The worker's metrics in ``registry`` (see the module docstring)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.state: QueueState | None = None
        self.read_at: float | None = None  # monotonic seconds of the last good read
        self.stopping = False
        self.attempts = Counter(
            "console_job_attempts",
            "Job attempts this worker ran, by task and outcome (succeeded, error).",
            ("task", "outcome"),
            registry=registry,
        )
        self.duration = Histogram(
            "console_job_duration_seconds",
            "How long a job attempt ran, by task, seconds.",
            ("task",),
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        registry.register(_QueueCollector(self))

    async def middleware(
        self,
        call_next: Callable[[], Awaitable[Any]],
        context: procrastinate.JobContext,
        worker: Any,
    ) -> Any:
        """procrastinate worker middleware: count and time every attempt."""
        task = context.job.task_name
        started = time.perf_counter()
        try:
            result = await call_next()
        except Exception:
            self.attempts.labels(task, "error").inc()
            raise
        finally:
            self.duration.labels(task).observe(time.perf_counter() - started)
        self.attempts.labels(task, "succeeded").inc()
        return result

    def ready(self) -> bool:
        """Whether the worker reaches its database (a fresh read) and is not stopping."""
        return (
            not self.stopping
            and self.read_at is not None
            and time.monotonic() - self.read_at < STALE_AFTER_S
        )

    async def refresh(self, app: procrastinate.App) -> None:
        """Read the queue once (a failure is logged; the last figures stay)."""
        try:
            self.state = await queue_state(app)
        except Exception as exc:
            log.warning("job_queue_unreadable", error=str(exc))
        else:
            self.read_at = time.monotonic()

    async def refresh_forever(self, app: procrastinate.App, interval_s: float = REFRESH_S) -> None:
        """:meth:`refresh` every ``interval_s`` seconds until cancelled."""
        while True:
            await self.refresh(app)
            await asyncio.sleep(interval_s)
