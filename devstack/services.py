"""Local stand-ins for the vendors and the database, each bound to 127.0.0.1.

Used by ``make dev`` (``python -m devstack``), the API tests and the benchmarks:
- PostgreSQL: the server of ``DATABASE_URL`` when set, else an embedded one (``pgserver``)
  whose data lives in a folder of ours; it listens on a Unix socket only.
- Cognito: ``moto`` server in a child process.
- Stripe: ``localstripe`` in a child process, bound to 127.0.0.1, its pickle store moved into
  our data folder (the stock command listens on all interfaces and writes /tmp).
- DNS: the TXT-record stand-in (``devstack/dns_server.py``, dnslib) in a child process,
  on a loopback port over UDP and TCP, its records in a JSON file of our data folder.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import warnings
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_http(
    url: str, timeout_s: float = 30.0, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Poll ``url`` until it answers (any status) or fail after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1.0)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f}s")


# ---------------------------------------------------------------------------------------------
# PostgreSQL


@dataclass
class Postgres:
    """A PostgreSQL server we can create databases on.

    ``admin_url`` is an asyncpg SQLAlchemy URL of its ``postgres`` database.
    """

    admin_url: str
    default_url: str | None = None
    _embedded: object | None = None

    def url_for(self, database: str) -> str:
        """The URL of another database on the same server."""
        return make_url(self.admin_url).set(database=database).render_as_string(hide_password=False)

    def _psql(self, sql: str) -> None:
        import asyncio

        import asyncpg

        url = make_url(self.admin_url)

        async def run() -> None:
            conn = await asyncpg.connect(
                user=url.username or "postgres",
                password=url.password,
                host=url.query.get("host") or url.host or "127.0.0.1",
                port=url.port or 5432,
                database=url.database or "postgres",
            )
            try:
                await conn.execute(sql)
            finally:
                await conn.close()

        asyncio.run(run())

    def create_database(self, name: str) -> str:
        """Create database ``name`` if missing; returns its URL."""
        try:
            self._psql(f'CREATE DATABASE "{name}"')
        except Exception as exc:
            if "already exists" not in str(exc):
                raise
        return self.url_for(name)

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` (closing other sessions on it)."""
        self._psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the embedded server, if we started one."""
        if self._embedded is not None:
            self._embedded.cleanup()  # type: ignore[attr-defined]


async def connect(database_url: str) -> Any:
    """A plain asyncpg connection to the database of a SQLAlchemy ``database_url`` (tests and
    benchmarks that hold locks or read tables behind the app's back); close it when done."""
    import asyncpg

    url = make_url(database_url)
    return await asyncpg.connect(
        user=url.username or "postgres",
        password=url.password,
        host=url.query.get("host") or url.host or "127.0.0.1",
        port=url.port or 5432,
        database=url.database,
    )


def start_postgres(data_dir: Path) -> Postgres:
    """Use ``DATABASE_URL``'s server if set, else start an embedded one in ``data_dir``."""
    env_url = os.environ.get("DATABASE_URL", "")
    if env_url:
        url = make_url(env_url)
        if url.drivername == "postgresql":
            url = url.set(drivername="postgresql+asyncpg")
        return Postgres(
            admin_url=url.set(database="postgres").render_as_string(hide_password=False),
            default_url=url.render_as_string(hide_password=False),
        )
    # pgserver asks platformdirs for a runtime dir, which warns when XDG_RUNTIME_DIR is unset
    # (containers, CI); the fallback it takes is fine.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(  # type: ignore[attr-defined]
        str(data_dir), cleanup_mode="stop"
    )
    socket_dir = quote(str(data_dir), safe="/")
    return Postgres(
        admin_url=f"postgresql+asyncpg://postgres@/postgres?host={socket_dir}", _embedded=server
    )


def migrate(database_url: str) -> None:
    """``alembic upgrade head`` on ``database_url`` under the migration lock, as production's
    ``python -m api.app.commands.migrate`` does, with the dev key ring unless one is set (a
    migration seals
    the API keys it moves)."""
    import asyncio

    from api.kernel.migrations import upgrade
    from devstack.bootstrap import DEV_KEY_RING

    for name, value in DEV_KEY_RING.items():
        os.environ.setdefault(name, value)
    asyncio.run(upgrade(database_url))


# ---------------------------------------------------------------------------------------------
# Vendor stand-ins


class ChildProcess:
    """A stand-in server running as a child process, its output in a log file."""

    def __init__(self, name: str, args: list[str], port: int, log_dir: Path, env: dict[str, str]):
        self.name = name
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        log_dir.mkdir(parents=True, exist_ok=True)
        self._log = (log_dir / f"{name}.log").open("ab")
        self.process = subprocess.Popen(
            args,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            cwd=ROOT,
            start_new_session=True,
        )

    def stop(self) -> None:
        """Terminate the process (then kill it after 5 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def start_moto(log_dir: Path, port: int | None = None) -> ChildProcess:
    """moto's server for cognito-idp on 127.0.0.1 with what moto lacks of Cognito added
    (``devstack.moto_server``), pool and client ids derived from their names
    (``*_ID_STRATEGY=HASH``) so they stay the same across restarts."""
    port = port or free_port()
    child = ChildProcess(
        "moto",
        [sys.executable, "-m", "devstack.moto_server", "-H", "127.0.0.1", "-p", str(port)],
        port,
        log_dir,
        {
            "MOTO_COGNITO_IDP_USER_POOL_ID_STRATEGY": "HASH",
            "MOTO_COGNITO_IDP_USER_POOL_CLIENT_ID_STRATEGY": "HASH",
        },
    )
    wait_http(child.url + "/moto-api/", process=child.process)
    return child


def start_localstripe(data_dir: Path, port: int | None = None) -> ChildProcess:
    """localstripe on 127.0.0.1 with its store at ``data_dir/localstripe.pickle``."""
    port = port or free_port()
    child = ChildProcess(
        "localstripe",
        [
            sys.executable,
            "-m",
            "devstack.localstripe_server",
            "--port",
            str(port),
            "--store",
            str(data_dir / "localstripe.pickle"),
        ],
        port,
        data_dir,
        {},
    )
    wait_http(child.url + "/js.stripe.com/v3/", process=child.process)
    return child


def wait_dns(
    port: int, timeout_s: float = 30.0, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Query 127.0.0.1:``port`` until it answers DNS, or fail after ``timeout_s`` seconds."""
    import dns.exception
    import dns.message
    import dns.query

    deadline = time.monotonic() + timeout_s
    query = dns.message.make_query("ready.invalid.", "TXT")
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"DNS stand-in: the process exited with {process.returncode}")
        try:
            dns.query.udp(query, "127.0.0.1", port=port, timeout=0.5)
            return
        except (dns.exception.Timeout, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"DNS stand-in on port {port} did not answer within {timeout_s:.0f}s")


def start_dns(store: Path, port: int | None = None) -> ChildProcess:
    """The DNS stand-in on 127.0.0.1:``port`` (UDP and TCP), its records in ``store``."""
    port = port or free_port()
    child = ChildProcess(
        "dns",
        [
            sys.executable,
            "-m",
            "devstack.dns_server",
            "--port",
            str(port),
            "--store",
            str(store),
        ],
        port,
        store.parent,
        {},
    )
    wait_dns(port, process=child.process)
    return child


def start_smtp_sink(mailbox: Path, port: int | None = None, delay_ms: float = 0) -> ChildProcess:
    """The SMTP sink on 127.0.0.1:``port``, appending what it accepts to ``mailbox``, each
    message held ``delay_ms`` first."""
    port = port or free_port()
    child = ChildProcess(
        "smtp",
        [
            sys.executable,
            "-m",
            "devstack.smtp_sink",
            "--port",
            str(port),
            "--mailbox",
            str(mailbox),
            "--delay-ms",
            str(delay_ms),
        ],
        port,
        mailbox.parent,
        {},
    )
    wait_tcp(port, process=child.process)
    return child


def start_worker(log_dir: Path) -> ChildProcess:
    """One worker of the job engine (``python -m api.app.commands.worker``) with this process's
    environment (the API's settings, set before), its output in ``log_dir/worker.log``, its
    metrics and readiness on a free loopback port (the child's ``port``); stopped with SIGTERM,
    which lets a running job finish (README "Background work")."""
    port = free_port()
    command = [sys.executable, "-m", "api.app.commands.worker", "--metrics-host", "127.0.0.1"]
    return ChildProcess("worker", [*command, "--metrics-port", str(port)], port, log_dir, {})


def wait_tcp(
    port: int, timeout_s: float = 30.0, process: subprocess.Popen[bytes] | None = None
) -> None:
    """Connect to 127.0.0.1:``port`` until it accepts, or fail after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"port {port}: the process exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout_s} s")


def random_suffix() -> str:
    """Eight hex characters for throwaway names."""
    return secrets.token_hex(4)
