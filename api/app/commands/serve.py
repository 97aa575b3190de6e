"""``python -m api.app.commands.serve``: one API replica (uvicorn, one process) that shuts down
gracefully.

    python -m api.app.commands.serve [--host 0.0.0.0] [--port 8000] [--metrics-port 9100]
                            [--log-level warning]

The production app (``api.app.web.create_app``, settings from the environment) on uvicorn, with
the client address left to ``TRUSTED_PROXIES`` (no uvicorn proxy headers). On SIGTERM (or a
first Ctrl-C):

1. ``/readyz`` answers 503 ``ShuttingDown`` at once, and the replica goes on serving for
   ``SHUTDOWN_DRAIN_S`` seconds, so a load balancer that probes it stops sending first;
2. it stops listening (a proxy's new connections are refused, which nginx retries on another
   replica), closes idle keep-alive connections and gives in-flight requests
   ``SHUTDOWN_GRACE_S`` seconds to finish (uvicorn's ``timeout_graceful_shutdown``; past it
   they are cancelled);
3. the app's lifespan closes the vendor clients and the database pool;
4. the process exits 0. (Stock uvicorn re-raises the signal after a graceful shutdown, so the
   process would die of SIGTERM, status 143.)

With ``--metrics-port`` the request and pool metrics (api/kernel/http/metrics.py) are served at
``/metrics`` on that port of the same host, never on the API's own port; they go on answering
through the drain and stop with the process.

A second signal skips what is left of the drain; a second Ctrl-C also stops waiting for
in-flight requests. Exit status 3 when the app cannot start (uvicorn's own code).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from types import FrameType

import uvicorn
from fastapi import FastAPI

from api.app.health import start_draining
from api.app.web import create_app
from api.kernel.config import Settings
from api.kernel.http.metrics import serve_metrics

STARTUP_FAILURE = 3


class GracefulServer(uvicorn.Server):
    """uvicorn's server with a drain before its graceful shutdown, exiting normally.

    Args:
        config: uvicorn's settings (``timeout_graceful_shutdown`` is the grace period).
        app: the app whose ``/readyz`` turns to 503 on the first signal.
        drain_s: seconds between the first signal and closing the listening socket.
    """

    def __init__(self, config: uvicorn.Config, app: FastAPI, drain_s: float) -> None:
        super().__init__(config)
        self._app = app
        self._drain_s = drain_s
        self._drain_until: float | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Signal handler (main thread, between two bytecodes): only flags, no I/O."""
        if self._drain_until is None:
            start_draining(self._app)
            self._drain_until = time.monotonic() + self._drain_s
        elif self.should_exit and sig == signal.SIGINT:
            self.force_exit = True
        else:
            self.should_exit = True

    async def on_tick(self, counter: int) -> bool:
        """Every 0.1 s: end the drain when it is over, then uvicorn's own checks."""
        if self._drain_until is not None and time.monotonic() >= self._drain_until:
            self.should_exit = True
        return await super().on_tick(counter)


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, serve until a signal, shut down gracefully; exit 0 (3: start failed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="0.0.0.0")  # noqa: S104 - a container's interface
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--metrics-port", type=int, default=0, help="serve /metrics on this port (0: none)"
    )
    parser.add_argument("--log-level", default="info", help="uvicorn's own log level")
    args = parser.parse_args(argv)
    settings = Settings()
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        access_log=False,  # api/kernel/http/logging.py logs every request
        proxy_headers=False,  # the client address is TRUSTED_PROXIES' business alone
        timeout_graceful_shutdown=max(1, round(settings.shutdown_grace_s)),
    )
    server = GracefulServer(config, app, settings.shutdown_drain_s)
    metrics = None
    if args.metrics_port:
        metrics = serve_metrics(app.state.metrics.registry, host=args.host, port=args.metrics_port)
    server.run()
    if metrics is not None:
        metrics.close()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


if __name__ == "__main__":
    main()
