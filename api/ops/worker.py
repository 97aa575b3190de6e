"""``python -m api.ops.worker``: one worker of the job engine (README "Background work").

    python -m api.ops.worker [--concurrency 4] [--shutdown-grace-s 20]

Runs the console's jobs (api/jobs/) from the database of ``DATABASE_URL`` with
the ``SMTP_*`` settings, until SIGTERM or Ctrl-C. On the first signal it takes no new job and
gives the running ones ``--shutdown-grace-s`` seconds to finish (a job cut past it goes back to
its retry); a second signal stops at once. Any number of workers can run side by side: each
job is taken by one of them (``SELECT ... FOR UPDATE SKIP LOCKED``). Exit status 0 after a
graceful stop, 1 when the database is unreachable at start.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator

import structlog
from sqlalchemy.ext.asyncio import AsyncEngine

from api.config import Settings
from api.db import create_engine, create_sessionmaker
from api.jobs.app import create_job_app
from api.platform.logging import configure_logging

log = structlog.get_logger(__name__)

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def run(settings: Settings, *, concurrency: int, shutdown_grace_s: float) -> int:
    """Run a worker until a signal stops it; returns the exit status."""
    # The tasks that change the console's tables run the API's code on a pool of their own.
    engine = create_engine(settings.database_url, concurrency)
    app = create_job_app(
        settings, pool_size=concurrency + 1, sessionmaker=create_sessionmaker(engine)
    )
    async with app.open_async(), _disposed(engine):
        if not await app.check_connection_async():
            log.error("worker_database_unreachable")
            return 1
        worker = asyncio.create_task(
            app.run_worker_async(
                concurrency=concurrency,
                shutdown_graceful_timeout=shutdown_grace_s,
                install_signal_handlers=False,
            )
        )
        loop = asyncio.get_running_loop()

        def stop() -> None:
            # procrastinate stops gracefully when its task is cancelled; the handlers go, so
            # a second signal has its default effect (the process ends at once).
            log.info("worker_stopping", grace_s=shutdown_grace_s)
            worker.cancel()
            for signum in _STOP_SIGNALS:
                loop.remove_signal_handler(signum)

        # Installed before saying it runs: a signal from then on is a graceful stop.
        for signum in _STOP_SIGNALS:
            loop.add_signal_handler(signum, stop)
        log.info("worker_started", concurrency=concurrency)
        with contextlib.suppress(asyncio.CancelledError):
            await worker
    log.info("worker_stopped")
    return 0


@contextlib.asynccontextmanager
async def _disposed(engine: AsyncEngine) -> AsyncIterator[None]:
    """Close ``engine``'s connections when the block ends, however it ends."""
    try:
        yield
    finally:
        await engine.dispose()


def main(argv: list[str] | None = None) -> int:
    """Run the worker from the command line; returns the exit status."""
    parser = argparse.ArgumentParser(description="Run the console's background jobs.")
    parser.add_argument("--concurrency", type=int, default=4, help="jobs run at once")
    parser.add_argument(
        "--shutdown-grace-s",
        type=float,
        default=20.0,
        help="seconds the running jobs get to finish after SIGTERM",
    )
    args = parser.parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    return asyncio.run(
        run(settings, concurrency=args.concurrency, shutdown_grace_s=args.shutdown_grace_s)
    )


if __name__ == "__main__":
    sys.exit(main())
