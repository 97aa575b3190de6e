"""The start-up check of the Cognito app client fails closed outside development (README
"Security model", "No side door to Cognito"; ``api.app.web._check_app_client``): an API that
cannot read its app client cannot know that it allows no password flow of its own, so it does
not start. In development (the stand-ins) an unreadable client is logged and the API starts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from structlog.testing import CapturingLogger

import api.app.web
from api.app.commands.serve import STARTUP_FAILURE
from api.app.web import create_app
from api.identity.sign_in import app_client
from devstack.replicas import Replica, replica_environment
from devstack.stack import Stack

# A client id the pool does not have: DescribeUserPoolClient answers ResourceNotFoundException,
# as it does for a client id that is wrong or a role without that permission (AccessDenied).
MISSING_CLIENT = "0123456789abcdefghijklmnop"


async def test_a_production_api_that_cannot_read_its_app_client_exits(
    stack: Stack, tmp_path: Path
) -> None:
    env = replica_environment(
        stack, "http://127.0.0.1", COGNITO_CLIENT_ID=MISSING_CLIENT, LOG_LEVEL="INFO"
    )
    replica = Replica("unchecked", env, tmp_path)
    replica.start()
    try:
        status = await asyncio.to_thread(replica.wait, 30)
    finally:
        replica.stop()
    assert status == STARTUP_FAILURE, replica.tail()
    log = replica.tail(20000)
    assert '"event":"app_client_unreadable"' in log, log
    assert MISSING_CLIENT in log


async def test_the_production_lifespan_fails_with_a_clear_error(stack: Stack) -> None:
    app = create_app(
        stack.with_settings(
            environment="production", dev_stand_ins=False, cognito_client_id=MISSING_CLIENT
        )
    )
    with pytest.raises(app_client.AppClientUnreadable, match="DescribeUserPoolClient"):
        async with app.router.lifespan_context(app):
            pytest.fail("the API started without reading its app client")


async def test_the_production_lifespan_fails_when_cognito_cannot_be_reached(
    stack: Stack,
) -> None:
    app = create_app(
        stack.with_settings(
            environment="production",
            dev_stand_ins=False,
            cognito_endpoint="http://127.0.0.1:9",  # discard: nothing listens
            cognito_timeout_s=1.0,
        )
    )
    with pytest.raises(app_client.AppClientUnreadable):
        async with app.router.lifespan_context(app):
            pytest.fail("the API started without reading its app client")


async def test_development_starts_and_says_the_client_was_not_checked(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lifespan configures structlog itself, so its lines are caught at the module's logger.
    log = CapturingLogger()
    monkeypatch.setattr(api.app.web, "log", log)
    app = create_app(stack.with_settings(cognito_client_id=MISSING_CLIENT))
    assert app.state.settings.environment == "development"
    async with app.router.lifespan_context(app):
        assert app.state.resources is not None
    [call] = log.calls
    assert (call.method_name, call.args) == ("warning", ("app_client_unchecked",)), log.calls
