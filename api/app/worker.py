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
from api.app.jobs import emails, periodic, stalled, stripe_events
from api.app.jobs.periodic import JobResources
from api.kernel.config import Settings

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
        settings: ``DATABASE_URL``, the ``SMTP_*`` settings of the email task,
            ``STRIPE_PLAN_ID`` of the webhook task, the schedules of the periodic tasks
            (api/app/jobs/periodic.py).
        mailer: sends the emails (default: the mailer of ``settings``).
        pool_size: the most connections the engine holds (one per concurrent job, plus one
            for ``LISTEN`` and, in ``python -m api.app.commands.worker``, one for the queue's
            figures).
        resources: what the webhook and periodic tasks use (default: opened from
            ``settings`` on first use); the caller closes them.

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
    stalled.register(app)
    resources = resources or JobResources(settings)
    stripe_events.register(app, resources.sessionmaker, settings.stripe_plan_id)
    periodic.register(app, settings, resources)
    return app
