"""Shared pieces of the API benchmarks: one production-configured uvicorn worker on loopback
against a running stand-in stack, and a real Cognito access token for a seeded user."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
from sqlalchemy import update

from api.adapters.cognito import CognitoClient
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import User
from devstack.bootstrap import api_environment
from devstack.services import free_port
from devstack.stack import Stack

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Worker:
    """A running API worker: its base URL and process id (uvicorn with one worker serves in
    the process it was started as)."""

    url: str
    pid: int

    def cpu_seconds(self) -> float:
        """CPU time the worker has used so far, user + system, in seconds (``/proc/<pid>/stat``
        fields 14 and 15, in clock ticks of 1/``SC_CLK_TCK`` s: 10 ms on Linux)."""
        with open(f"/proc/{self.pid}/stat") as stat:
            # The command name (field 2) is in parentheses and may hold spaces: split after it.
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


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
    The user of that email is bound to the new pool user, as a sign-in through the API does."""
    cognito = CognitoClient.from_settings(settings)
    try:
        created = await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await cognito.admin_set_user_password(email, password, permanent=True)
        tokens = (await cognito.password_auth(email, password)).tokens
    finally:
        await cognito.aclose()
    assert tokens is not None
    engine = create_engine(settings.database_url, 1)
    async with create_sessionmaker(engine)() as db, db.begin():
        await db.execute(
            update(User).where(User.identity_id == email).values(identity_sub=created.sub)
        )
    await engine.dispose()
    return tokens.access_token
