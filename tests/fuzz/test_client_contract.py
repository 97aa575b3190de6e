"""The generated TypeScript client against the running API: the vitest suite in
web/src/**/*.live.ts calls every operation's main path and an error path through the SPA's
own client, so CI fails when the server and the generated types disagree."""

from __future__ import annotations

import os
import secrets
import subprocess

import httpx

from devstack.replay import reveal_api_key
from devstack.services import ROOT

PASSWORD = "Contract-pass-42!"


def test_the_generated_client_agrees_with_the_api(console_url: str) -> None:
    email = f"contract-{secrets.token_hex(4)}@contract-labs.dev"
    registered = httpx.post(
        f"{console_url}/web/registration",
        json={
            "firstName": "Con",
            "lastName": "Tract",
            "emailAddress": email,
            "organizationName": "Contract Labs",
            "newPassword": PASSWORD,
        },
        timeout=30,
    )
    assert registered.status_code == 201, registered.text
    with httpx.Client(base_url=console_url, timeout=30) as client:
        api_key = reveal_api_key(client, registered.json()["accessToken"])
        # The code Cognito emailed at registration: the suite enters it (email verification).
        mail = client.get("/dev/mailbox", params={"to": email}).json()
    codes = [m["code"] for m in mail if m.get("code")]
    assert codes, mail
    result = subprocess.run(
        ["npx", "vitest", "run", "--config", "vitest.contract.config.ts"],
        cwd=ROOT / "web",
        env={
            **os.environ,
            "CONTRACT_API_URL": console_url,
            "CONTRACT_EMAIL": email,
            "CONTRACT_PASSWORD": PASSWORD,
            "CONTRACT_API_KEY": api_key,
            "CONTRACT_EMAIL_CODE": codes[0],
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-6000:]
    assert "passed" in report, report[-2000:]
