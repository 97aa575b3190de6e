"""Shared pieces of the API benchmarks: one production-configured uvicorn worker on loopback
against a running stand-in stack, and a real Cognito access token for a seeded user."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from api.adapters.cognito import CognitoClient
from api.config import Settings
from api.devstack.bootstrap import api_environment
from api.devstack.services import free_port
from api.devstack.stack import Stack


@contextmanager
def one_worker(stack: Stack) -> Iterator[str]:
    """``uvicorn --factory api.main:create_app --workers 1`` with production settings (JSON
    logs at WARNING, no access log); yields its base URL once /readyz answers, then stops it."""
    port = free_port()
    env = api_environment(
        stack.stand_ins,
        database_url=stack.settings.database_url,
        public_url=f"http://127.0.0.1:{port}",
    )
    env.update(ENVIRONMENT="production", DEV_STAND_INS="false", LOG_FORMAT="json")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "api.main:create_app",
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
        yield base
    finally:
        server.terminate()
        server.wait(10)


async def access_token(settings: Settings, email: str, password: str) -> str:
    """Create ``email`` in the stand-in pool with ``password`` and sign in; the access token."""
    cognito = CognitoClient.from_settings(settings)
    try:
        await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await cognito.admin_set_user_password(email, password, permanent=True)
        tokens = (await cognito.initiate_password_auth(email, password)).tokens
    finally:
        await cognito.aclose()
    assert tokens is not None
    return tokens.access_token
