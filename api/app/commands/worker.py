"""``python -m api.app.commands.worker``: one worker of the job engine (README "Background work").

    python -m api.app.commands.worker [--concurrency 4] [--shutdown-grace-s 20] [--queues
    emails,...]
                             [--metrics-port 9100 [--metrics-host 0.0.0.0]]

Runs the console's jobs (api/app/jobs/: the emails, the periodic tasks) from the database of
``DATABASE_URL`` with the API's settings, until SIGTERM or Ctrl-C. On the first signal it takes
no new job, answers ``/readyz`` 503, and gives the running ones ``--shutdown-grace-s`` seconds
to finish (a job cut past it goes back to its retry); a second signal stops at once. Any number
of workers can run side by side: each job is taken by one of them (``SELECT ... FOR UPDATE SKIP
LOCKED``), each periodic tick deferred once; ``--queues`` limits one to some queues (default:
all). With ``--metrics-port`` it serves its metrics at ``/metrics`` and its readiness at
``/readyz`` (api/app/jobs/metrics.py): ready once it is registered (it takes jobs and beats), while
it reads its queue and until it stops. Exit status 0 after a graceful stop, 1 when the database
is unreachable at start.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

import structlog
from procrastinate.app import WorkerOptions
from procrastinate.worker import Worker

from api.app.jobs.metrics import WorkerMetrics
from api.app.worker import create_job_app
from api.kernel.config import Settings
from api.kernel.http.logging import configure_logging
from api.kernel.http.metrics import process_registry, serve_metrics
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def run(
    settings: Settings,
    *,
    concurrency: int,
    shutdown_grace_s: float,
    metrics_host: str = "127.0.0.1",
    metrics_port: int = 0,
    queues: list[str] | None = None,
) -> int:
    """Run a worker until a signal stops it; returns the exit status."""
    # The tasks that change the console's tables (Stripe's events, the periodic passes) run
    # the API's code on a pool of their own, one connection per concurrent job.
    resources = JobResources(settings, pool_size=concurrency)
    app = create_job_app(settings, pool_size=concurrency + 2, resources=resources)
    metrics = WorkerMetrics(process_registry())
    async with app.open_async():
        if not await app.check_connection_async():
            log.error("worker_database_unreachable")
            return 1
        options: WorkerOptions = {
            "concurrency": concurrency,
            "shutdown_graceful_timeout": shutdown_grace_s,
            "install_signal_handlers": False,
            "worker_middleware": [metrics.middleware],
        }
        if queues:  # else every queue (procrastinate's default)
            options["queues"] = queues
        engine = Worker(app=app, **options)

        def ready() -> bool:
            # Registered (it takes jobs and beats), reading its queue, not stopping.
            return engine.worker_id is not None and metrics.ready()

        await metrics.refresh(app)
        server = None
        if metrics_port:
            server = serve_metrics(
                metrics.registry, host=metrics_host, port=metrics_port, ready=ready
            )
        refresher = asyncio.create_task(metrics.refresh_forever(app))
        # procrastinate's App.run_worker_async does this too; kept here so /readyz sees the
        # worker's registration. (Worker.run carries no annotations.)
        worker = asyncio.create_task(engine.run())  # type: ignore[no-untyped-call]
        loop = asyncio.get_running_loop()

        def stop() -> None:
            # procrastinate stops gracefully when its task is cancelled; the handlers go, so
            # a second signal has its default effect (the process ends at once).
            log.info("worker_stopping", grace_s=shutdown_grace_s)
            metrics.stopping = True
            worker.cancel()
            for signum in _STOP_SIGNALS:
                loop.remove_signal_handler(signum)

        # Installed before saying it runs: a signal from then on is a graceful stop.
        for signum in _STOP_SIGNALS:
            loop.add_signal_handler(signum, stop)
        log.info("worker_started", concurrency=concurrency, metrics_port=metrics_port or None)
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        finally:
            refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await refresher
            if server is not None:
                server.close()
            await resources.aclose()
    log.info("worker_stopped")
    return 0


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
    parser.add_argument(
        "--queues", default="", help="comma-separated queues to take jobs from (default: all)"
    )
    parser.add_argument(
        "--metrics-port", type=int, default=0, help="serve /metrics and /readyz here (0: none)"
    )
    parser.add_argument("--metrics-host", default="0.0.0.0", help="interface of --metrics-port")  # noqa: S104 - a container's interface
    args = parser.parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    return asyncio.run(
        run(
            settings,
            concurrency=args.concurrency,
            shutdown_grace_s=args.shutdown_grace_s,
            metrics_host=args.metrics_host,
            metrics_port=args.metrics_port,
            queues=[q for q in args.queues.split(",") if q] or None,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
