"""A Python client generated from ``openapi.json`` by openapi-python-client, as an
integrator would: it comes out without a warning (each documented error typed), and works
against a running dev stack for sign-in, the session, the account and a typed error."""

from __future__ import annotations

import importlib
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from api.app.commands.openapi import OPENAPI_PATH

PASSWORD = "Generated-client-42!"
PACKAGE = "console_client"


def generate(contract: Path, output: Path) -> str:
    """Run openapi-python-client on ``contract`` into the package folder ``output``; returns
    what it printed. Its ruff hooks run with the project's own ruff."""
    bin_dir = str(Path(sys.executable).parent)
    result = subprocess.run(
        [
            str(Path(bin_dir) / "openapi-python-client"),
            "generate",
            "--path",
            str(contract),
            "--meta",
            "none",
            "--output-path",
            str(output),
            "--overwrite",
        ],
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    printed = result.stdout + result.stderr
    assert result.returncode == 0, printed[-6000:]
    return printed


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated client, importable as ``console_client`` for this module's tests."""
    root = tmp_path_factory.mktemp("generated")
    printed = generate(OPENAPI_PATH, root / PACKAGE)
    assert "warning" not in printed.lower(), printed[-6000:]
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def _module(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_the_generated_python_client_works(client_package: ModuleType, console_url: str) -> None:
    models = _module("models")
    client = client_package.Client(base_url=console_url, raise_on_unexpected_status=True)
    email = f"pyclient-{secrets.token_hex(4)}@pyclient-labs.dev"
    registered = _module("api.session.register").sync_detailed(
        client=client,
        body=models.RegistrationRequest(
            first_name="Py",
            last_name="Client",
            email_address=email,
            organization_name="PyClient Labs",
            new_password=PASSWORD,
        ),
    )
    assert registered.status_code == 201, registered.content

    # Sign-in: typed tokens.
    signed_in = _module("api.session.sign_in").sync(
        client=client, body=models.SignInRequest(email=email, password=PASSWORD)
    )
    assert isinstance(signed_in, models.SignInResponse), signed_in
    assert isinstance(signed_in.tokens, models.Tokens), signed_in
    token = signed_in.tokens.access_token

    authed = client_package.AuthenticatedClient(
        base_url=console_url, token=token, raise_on_unexpected_status=True
    )
    # The session and the account, parsed into the generated models.
    session = _module("api.session.get_session").sync(client=authed)
    assert isinstance(session, models.SessionResponse), session
    assert session.session.user.email == email
    account = _module("api.account.get_account").sync(client=authed)
    assert isinstance(account, models.AccountResponse), account
    assert account.account.name == "PyClient Labs"

    # A documented error comes back typed, its code a literal, not UnexpectedStatus.
    refused = _module("api.session.sign_in").sync_detailed(
        client=client, body=models.SignInRequest(email=email, password=PASSWORD + "x")
    )
    assert refused.status_code == 400, refused.content
    assert isinstance(refused.parsed, models.ErrorNotAuthorizedException), refused.parsed
    assert refused.parsed.code == "NotAuthorizedException"
    expired = client_package.AuthenticatedClient(
        base_url=console_url, token="not-a-token", raise_on_unexpected_status=True
    )
    unauthenticated = _module("api.account.get_account").sync_detailed(client=expired)
    assert unauthenticated.status_code == 401
    assert unauthenticated.parsed.code in {"NotAuthenticated", "SessionEnded"}
    assert httpx.codes(unauthenticated.status_code) == httpx.codes.UNAUTHORIZED
