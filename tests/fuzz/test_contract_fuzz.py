"""The published contract holds under property-based fuzzing (README "The contract").

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
    """Register a fresh account (the fuzzer may rename it, invite and delete its users...)
    and verify its email address with the code Cognito emailed (an unverified registrant is
    refused domains, SSO and invitations); returns the user's access token."""
    email = f"fuzz-{secrets.token_hex(4)}@fuzz-labs.dev"
    response = httpx.post(
        f"{console_url}/web/registration",
        json={
            "firstName": "Fuzz",
            "lastName": "Tester",
            "emailAddress": email,
            "organizationName": "Fuzz Labs",
            "newPassword": "Fuzz-password-42!",
        },
        timeout=30,
    )
    assert response.status_code == 201, response.text
    token = str(response.json()["accessToken"])
    mail = httpx.get(f"{console_url}/dev/mailbox", params={"to": email}, timeout=30).json()
    code = next(m["code"] for m in mail if m.get("code"))
    verified = httpx.post(
        f"{console_url}/web/session/email-verification/confirm",
        headers={"Authorization": f"Bearer {token}"},
        json={"code": code},
        timeout=30,
    )
    assert verified.status_code == 204, verified.text
    return token


def _api_key(console_url: str, token: str) -> str:
    """The account's API key, as the test service would hold it for the metering intake."""
    with httpx.Client(base_url=console_url, timeout=30) as client:
        return reveal_api_key(client, token)


def _scim_token(console_url: str, token: str) -> str:
    """A SCIM token of the account, generated as its Owner does in User Management."""
    response = httpx.post(
        f"{console_url}/web/scim-tokens", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code == 201, response.text
    return str(response.json()["secret"])


def _fuzz(console_url: str, name: str, *options: str, scim: bool = False) -> str:
    """Run Schemathesis on the committed contract against the dev stack, signed in as a user of
    a fresh account (``scim``: as the account's identity provider, with a SCIM token); returns
    its report (also kept in artifacts/schemathesis-<name>.txt)."""
    token = _signed_in_token(console_url)
    api_key = _api_key(console_url, token)
    if scim:
        token = _scim_token(console_url, token)
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
            *options,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = result.stdout + result.stderr
    (ROOT / "artifacts").mkdir(exist_ok=True)
    (ROOT / "artifacts" / f"schemathesis-{name}.txt").write_text(report)
    assert result.returncode == 0, report[-8000:]
    return report


# Sign-out ends the fuzzing user's sessions (README "The sign-in policy on every request"): it
# has a run of its own, with a token of its own, so the main run stays signed in throughout.
SIGN_OUT = "signOut"
# Reads that must have run signed in: a run whose token stopped working part of the way
# through would pass on 401s alone (Schemathesis then warns that they "returned only
# 401/403 responses").
SIGNED_IN_READS = ("GET /web/session", "GET /web/account", "GET /web/api-keys", "GET /web/invoices")


def _only_refused(report: str) -> set[str]:
    """The operations Schemathesis reports as having returned only 401/403 responses."""
    block = re.search(r"401 Unauthorized \(\d+ operations?\):\n((?:  - .+\n)+)", report)
    return set() if block is None else {line[4:] for line in block.group(1).splitlines()}


# The SCIM service takes a SCIM token, not a user's: it has a run of its own.
SCIM_PATHS = "^/scim/"


def test_the_api_keeps_its_contract(console_url: str) -> None:
    report = _fuzz(
        console_url,
        "main",
        "--exclude-operation-id",
        SIGN_OUT,
        "--exclude-path-regex",
        SCIM_PATHS,
    )
    assert not _only_refused(report) & set(SIGNED_IN_READS), report[-4000:]
    generated = re.search(r"(\d+) generated", report)
    assert generated is not None, report[-2000:]
    assert int(generated.group(1)) >= MIN_CASES, report[-2000:]


def test_sign_out_keeps_its_contract(console_url: str) -> None:
    _fuzz(console_url, "sign-out", "--include-operation-id", SIGN_OUT)


def test_the_scim_service_keeps_its_contract(console_url: str) -> None:
    report = _fuzz(console_url, "scim", "--include-path-regex", SCIM_PATHS, scim=True)
    assert not _only_refused(report) & {"GET /scim/v2/Users", "GET /scim/v2/Groups"}, report[-4000:]


def test_the_refusal_list_is_read_from_the_report() -> None:
    report = (
        "Authentication failed\n\n401 Unauthorized (2 operations):\n"
        "  - GET /web/account\n  - POST /web/x\n\n"
    )
    assert _only_refused(report) == {"GET /web/account", "POST /web/x"}
    assert _only_refused("all good") == set()
