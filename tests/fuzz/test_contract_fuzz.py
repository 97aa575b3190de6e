"""The published contract holds under property-based fuzzing (issue 10).

Schemathesis reads the committed ``openapi.json`` and sends generated requests to a running
dev stack as a user of a fresh account (the metering intake with its API key), with every
check on (server errors, response schema,
undocumented statuses, ``Allow`` on 405, schema-valid requests rejected, schema-violating ones
accepted...) and stateful sequences through the links it infers. Settings, the seed included,
live in ``schemathesis.toml``.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
from pathlib import Path

import httpx

from devstack.replay import reveal_api_key
from devstack.services import ROOT

MIN_CASES = 1000


def _signed_in_token(console_url: str) -> str:
    """Register a fresh account (the fuzzer may rename it, invite and delete its users...);
    returns the user's access token."""
    response = httpx.post(
        f"{console_url}/web/registration",
        json={
            "firstName": "Fuzz",
            "lastName": "Tester",
            "emailAddress": f"fuzz-{secrets.token_hex(4)}@fuzz-labs.dev",
            "organizationName": "Fuzz Labs",
            "newPassword": "Fuzz-password-42!",
        },
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["accessToken"])


def _api_key(console_url: str, token: str) -> str:
    """The account's API key, as the test service would hold it for the metering intake."""
    with httpx.Client(base_url=console_url, timeout=30) as client:
        return reveal_api_key(client, token)


def test_the_api_keeps_its_contract(console_url: str) -> None:
    token = _signed_in_token(console_url)
    api_key = _api_key(console_url, token)
    schemathesis = Path(sys.executable).with_name("schemathesis")
    result = subprocess.run(
        [
            str(schemathesis),
            "run",
            "openapi.json",
            "--url",
            console_url,
            "--header",
            f"Authorization: Bearer {token}",
            "--header",
            f"X-API-Key: {api_key}",
            "--checks",
            "all",
            "--no-color",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = result.stdout + result.stderr
    (ROOT / "artifacts").mkdir(exist_ok=True)
    (ROOT / "artifacts" / "schemathesis.txt").write_text(report)
    assert result.returncode == 0, report[-8000:]
    generated = re.search(r"(\d+) generated", report)
    assert generated is not None, report[-2000:]
    assert int(generated.group(1)) >= MIN_CASES, report[-2000:]
