"""The procrastinate app of the worker (README "Background work").

procrastinate (PostgreSQL only: jobs are rows, workers take them with ``SELECT ... FOR UPDATE
SKIP LOCKED`` and wake up on ``LISTEN/NOTIFY``) connects with psycopg 3, so the worker opens a
small pool of its own from ``DATABASE_URL`` (the asyncpg URL of the API, converted); the tasks
that change the console's tables use the API's code, on an asyncpg pool of their own.
"""

from __future__ import annotations

from typing import Any

import procrastinate
from psycopg.conninfo import make_conninfo
from sqlalchemy.engine import make_url

from api.adapters.mail import Mailer
from api.app import features
from api.app.jobs import emails, periodic, stalled
from api.feature import JobTask
from api.kernel.config import Settings
from api.principal.resources import JobResources

# asyncpg's query parameters and their libpq names (the others are passed as they are).
_LIBPQ_NAMES = {"ssl": "sslmode", "server_settings": ""}


def psycopg_conninfo(database_url: str) -> str:
    """The libpq connection string of a ``postgresql+asyncpg://`` URL, e.g.
    ``postgresql+asyncpg://app:pw@db:5432/console?ssl=require`` -> ``user=app password=pw
    host=db port=5432 dbname=console sslmode=require``; a ``host`` query parameter (a
    Unix socket directory) stands for the host.

    Raises:
        ValueError: the URL cannot be parsed.
    """
    try:
        url = make_url(database_url)
    except Exception as exc:  # SQLAlchemy's ArgumentError: not a URL at all
        raise ValueError("DATABASE_URL is not a database URL") from exc
    params: dict[str, Any] = {}
    for name, value in url.query.items():
        libpq = _LIBPQ_NAMES.get(name, name)
        if libpq:
            params[libpq] = value if isinstance(value, str) else value[-1]
    if url.host and "host" not in params:
        params["host"] = url.host
    if url.port:
        params["port"] = url.port
    if url.username:
        params["user"] = url.username
    if url.password:
        params["password"] = url.password
    if url.database:
        params["dbname"] = url.database
    return make_conninfo(**params)


def create_job_app(
    settings: Settings,
    *,
    mailer: Mailer | None = None,
    pool_size: int = 4,
    resources: JobResources | None = None,
) -> procrastinate.App:
    """The app with every task of the console, on the database of ``settings``.

    Args:
        settings: ``DATABASE_URL``, the ``SMTP_*`` settings of the email task and the
            schedules of the features' periodic tasks (api/app/jobs/periodic.py).
        mailer: sends the emails (default: the mailer of ``settings``).
        pool_size: the most connections the engine holds (one per concurrent job, plus one
            for ``LISTEN`` and, in ``python -m api.app.commands.worker``, one for the queue's
            figures).
        resources: what the features' job and periodic tasks use (default: opened from
            ``settings`` on first use; the Stripe webhook task reads ``STRIPE_PLAN_ID`` from
            their settings); the caller closes them.

    Raises:
        ValueError: ``DATABASE_URL`` is not set.
    """
    settings.check_database()
    connector = procrastinate.PsycopgConnector(
        conninfo=psycopg_conninfo(settings.database_url),
        min_size=1,
        max_size=pool_size,
    )
    app = procrastinate.App(connector=connector)
    emails.register(app, mailer or Mailer.from_settings(settings))
    stalled.register(
        app, cron=settings.job_stalled_cron, stalled_after_s=settings.job_stalled_after_s
    )
    resources = resources or JobResources(settings)
    for job in features.job_tasks():
        _register_task(app, job, resources)
    periodic.register(app, settings, resources, features.periodic_tasks())
    return app


def _register_task(app: procrastinate.App, job: JobTask, resources: JobResources) -> None:
    """Add a feature's job task to ``app``: each job runs ``job.run(resources, **args)``,
    retried with an exponential backoff (the n-th retry after 2**n seconds) up to
    ``job.max_attempts`` times."""

    async def run(**args: Any) -> None:
        await job.run(resources, **args)

    run.__name__ = job.task.name
    retry = procrastinate.RetryStrategy(max_attempts=job.max_attempts, exponential_wait=2)
    app.task(name=job.task.name, queue=job.task.queue, retry=retry)(run)
