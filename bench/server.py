"""Shared pieces of the API benchmarks: one production-configured uvicorn worker on loopback
against a running stand-in stack, and a real Cognito access token for a seeded user."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import jwt
from sqlalchemy import text, update

from api.adapters.cognito import CognitoClient
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import SignInMethod, SignInSession, User
from devstack.bootstrap import api_environment
from devstack.services import free_port
from devstack.stack import Stack

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int | str) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (field 3 on: state, ppid...),
    which is in parentheses and may hold spaces."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


@dataclass(frozen=True)
class Worker:
    """A running API worker: its base URL and process id (uvicorn with one worker serves in
    the process it was started as)."""

    url: str
    pid: int

    def cpu_seconds(self) -> float:
        """CPU time the worker has used so far, user + system, in seconds (``/proc/<pid>/stat``
        fields 14 and 15, in clock ticks of 1/``SC_CLK_TCK`` s: 10 ms on Linux)."""
        fields = _stat_fields(self.pid)
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


@dataclass(frozen=True)
class PostgresCluster:
    """The PostgreSQL server the bench's database is on, seen from ``/proc``: its postmaster
    (the parent of a backend of ours) and, at each reading, the processes it started."""

    postmaster: int

    @classmethod
    def of(cls, database_url: str) -> PostgresCluster:
        """The cluster serving ``database_url`` (a server on this machine: its processes must
        be in this one's ``/proc``)."""

        async def postmaster() -> int:
            engine = create_engine(database_url, 1)
            try:
                async with engine.connect() as connection:
                    backend = await connection.scalar(text("SELECT pg_backend_pid()"))
                    # Read while the backend lives: it exits with the connection.
                    return int(_stat_fields(int(backend))[1])
            finally:
                await engine.dispose()

        return cls(asyncio.run(postmaster()))

    def cpu_seconds(self) -> float:
        """CPU time of the whole cluster so far, user + system, in seconds: the postmaster's
        own and that of the children it has reaped (``cutime``, ``cstime``: backends whose
        connection closed), plus every live child's (backends, checkpointer, WAL writer...).
        On a server other clients use too, their work counts as well."""
        fields = _stat_fields(self.postmaster)
        ticks = sum(int(f) for f in fields[11:15])
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                child = _stat_fields(entry.name)
            except OSError:  # exited meanwhile
                continue
            if int(child[1]) == self.postmaster:
                ticks += int(child[11]) + int(child[12])
        return ticks / _CLOCK_TICKS


@contextmanager
def one_worker(stack: Stack, overrides: dict[str, str] | None = None) -> Iterator[Worker]:
    """``uvicorn --factory api.app.web:create_app --workers 1`` with production settings (JSON
    access lines at INFO to /dev/null, no uvicorn access log) and the environment
    ``overrides``; yields it once /readyz answers, then stops it."""
    port = free_port()
    env = api_environment(
        stack.stand_ins,
        database_url=stack.settings.database_url,
        public_url=f"http://127.0.0.1:{port}",
    )
    env.update(ENVIRONMENT="production", DEV_STAND_INS="false", LOG_FORMAT="json")
    env.update(overrides or {})
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "api.app.web:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--no-access-log",
            "--log-level",
            "warning",
        ],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(base + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield Worker(base, server.pid)
    finally:
        server.terminate()
        server.wait(10)


async def access_token(settings: Settings, email: str, password: str) -> str:
    """Create ``email`` in the stand-in pool with ``password`` and sign in; the access token.
    The user of that email is bound to the new pool user, and the sign-in's session recorded
    (README "Sessions": each request finds it by the token's ``origin_jti``), as a sign-in
    through the API does."""
    cognito = CognitoClient.from_settings(settings)
    try:
        created = await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await cognito.admin_set_user_password(email, password, permanent=True)
        tokens = (await cognito.password_auth(email, password)).tokens
    finally:
        await cognito.aclose()
    assert tokens is not None
    engine = create_engine(settings.database_url, 1)
    claims = jwt.decode(tokens.access_token, options={"verify_signature": False})
    async with create_sessionmaker(engine)() as db, db.begin():
        await db.execute(
            update(User).where(User.identity_id == email).values(identity_sub=created.sub)
        )
        db.add(
            SignInSession(
                identity_sub=created.sub,
                origin_jti=claims["origin_jti"],
                method=SignInMethod.PASSWORD,
                user_agent="wrk",
                client_address="127.0.0.1",
            )
        )
    await engine.dispose()
    return tokens.access_token
