"""API replicas as production runs them (``python -m api.app.commands.serve``), against the
stand-in stack.

Each replica is a child process with production settings (``ENVIRONMENT=production``, no
stand-ins mounted, JSON logs) pointed at the stack's moto, localstripe, DNS stand-in and
database, listening on a loopback port. Used by the replica tests and ``make scale-check``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from devstack.bootstrap import api_environment
from devstack.services import ROOT, free_port
from devstack.stack import Stack


def replica_environment(stack: Stack, public_url: str, **overrides: str) -> dict[str, str]:
    """The environment of a production replica against ``stack`` (``overrides`` win)."""
    env = api_environment(
        stack.stand_ins, database_url=stack.settings.database_url, public_url=public_url
    )
    env.update(
        ENVIRONMENT="production",
        DEV_STAND_INS="false",
        LOG_FORMAT="json",
        LOG_LEVEL="WARNING",
    )
    env.update(overrides)
    return env


class Replica:
    """One ``python -m api.app.commands.serve`` process on 127.0.0.1.

    Args:
        name: for its log file (``log_dir/<name>.log``, appended to across restarts).
        env: its settings (:func:`replica_environment`).
        log_dir: where the log goes.
        port: the port (a free one by default); kept across restarts.
        metrics_port: where it serves ``/metrics`` (``--metrics-port``; None: nowhere).
    """

    def __init__(
        self,
        name: str,
        env: dict[str, str],
        log_dir: Path,
        port: int | None = None,
        metrics_port: int | None = None,
    ):
        self.name = name
        self.env = env
        self.port = port or free_port()
        self.metrics_port = metrics_port
        self.url = f"http://127.0.0.1:{self.port}"
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """The command line of the process."""
        return [
            sys.executable,
            "-m",
            "api.app.commands.serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
            *(["--metrics-port", str(self.metrics_port)] if self.metrics_port else []),
        ]

    def start(self) -> None:
        """Start the process (returns at once; see :meth:`wait_ready`)."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.command(),
                env={**os.environ, **self.env},
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        """Poll ``/readyz`` until 200.

        Raises:
            RuntimeError: the process exited, or was not ready within ``timeout_s`` seconds
                (with the end of its log).
        """
        assert self.process is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited {self.process.returncode}: {self.tail()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready within {timeout_s:.0f}s: {self.tail()}")

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` (SIGTERM: graceful shutdown; SIGKILL: a crash)."""
        assert self.process is not None
        self.process.send_signal(sig)

    def wait(self, timeout_s: float = 60.0) -> int:
        """Wait for the process to end; its exit status (negative: killed by that signal)."""
        assert self.process is not None
        return self.process.wait(timeout_s)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 30 s; nothing if it is not running."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def tail(self, chars: int = 2000) -> str:
        """The end of its log."""
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


class JobWorker(Replica):
    """One ``python -m api.app.commands.worker`` process: ``port`` is its metrics port, whose
    ``/readyz``
    :meth:`wait_ready` polls (ready once it reads its queue)."""

    def command(self) -> list[str]:
        """The worker's command line, its metrics and readiness on ``port``."""
        return [
            sys.executable,
            "-m",
            "api.app.commands.worker",
            "--metrics-host",
            "127.0.0.1",
            "--metrics-port",
            str(self.port),
        ]
