"""What a feature declares (docs/contributors/code-layout.md "Adding a feature").

Each domain's ``feature.py`` (``api/<domain>/feature.py``, ``api/identity/<part>/feature.py``)
builds one :class:`Feature`: its routers, the throttles and quotas its routes count (declared
beside them, ``throttles.py``), its request body limits, its periodic work and the job tasks it
defers. ``api/app/features.py`` lists every feature, and the app and the worker derive their
routers, body limits, limits catalogue, tasks and schedules from that list: adding a feature
touches its own folder and one line there.

Below every domain and above the limiter (an import contract, pyproject.toml): domains import
this module, never ``api.app``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import APIRouter

from api.kernel.config import Settings
from api.kernel.deferred import Task
from api.principal.resources import JobResources
from api.ratelimit import Quota, Throttle


@dataclass(frozen=True, slots=True)
class BodyLimit:
    """Request bodies under paths starting with ``prefix`` may hold up to ``max_bytes``
    (api/kernel/http/body_limits.py; every other path: the app's default for forms)."""

    prefix: str
    max_bytes: int


@dataclass(frozen=True, slots=True)
class PeriodicTask:
    """Work the job worker runs on a schedule (README "Background work";
    api/app/jobs/periodic.py: one deferral per tick across the workers, one run at a time).

    Args:
        name: the task's name, also its lock and queueing lock.
        schedule: the environment variable of the setting holding its cron expression (UTC;
            empty: never), e.g. ``"DOMAIN_RECHECK_CRON"``.
        run: one pass, given the worker's resources; what it raises fails the job.

    Raises:
        ValueError: ``schedule`` is no setting (at import).
    """

    name: str
    schedule: str
    run: Callable[[JobResources], Awaitable[None]]

    def __post_init__(self) -> None:
        if self.schedule not in Settings.names():
            raise ValueError(f"{self.name}: no setting is read from {self.schedule}")

    def cron(self, settings: Settings) -> str:
        """Its schedule under ``settings`` (empty: never)."""
        return str(settings.value(self.schedule))


@dataclass(frozen=True, slots=True)
class JobTask:
    """A task the feature defers (``task.defer`` in the request's transaction) and the worker
    runs: ``run(resources, **args)`` with the job's JSON arguments. An attempt that raises is
    tried again after 2 s, 4 s, ... (2**n seconds) up to ``max_attempts`` retries, then the job
    is ``failed``."""

    task: Task
    run: Callable[..., Awaitable[None]]
    max_attempts: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Feature:
    """What one feature brings to the app and the worker.

    Args:
        name: unique among the features (the tests name them by it).
        routers: included in this order, after the features listed before it (the order
            decides which of two matching paths answers).
        throttles: every :class:`~api.ratelimit.Throttle` its routes count, each declared by
            one feature only (a route counting one no feature declares stops the app at
            start).
        quotas: the same for its :class:`~api.ratelimit.Quota` objects.
        body_limits: its paths whose request bodies may be larger than a form.
        periodic: its periodic work.
        tasks: the job tasks it defers.
    """

    name: str
    routers: tuple[APIRouter, ...] = ()
    throttles: tuple[Throttle, ...] = ()
    quotas: tuple[Quota, ...] = ()
    body_limits: tuple[BodyLimit, ...] = ()
    periodic: tuple[PeriodicTask, ...] = ()
    tasks: tuple[JobTask, ...] = ()
