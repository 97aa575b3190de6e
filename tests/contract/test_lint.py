"""``openapi.json`` passes Redocly CLI's recommended rules and Spectral's ``spectral:oas``
with no error and no warning (the tools and their configs in tools/contract: a rule switched
off is named there with the reason)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from api.app.commands.openapi import OPENAPI_PATH

TOOLS = OPENAPI_PATH.parent / "tools" / "contract"
# No telemetry and no update check: the linters run offline.
OFFLINE = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=TOOLS, env=OFFLINE, capture_output=True, text=True, timeout=300, check=False
    )


def test_redocly_recommended_rules_find_nothing() -> None:
    result = _run(
        "node_modules/.bin/redocly",
        "lint",
        str(OPENAPI_PATH),
        "--config",
        "redocly.yaml",
        "--format",
        "json",
    )
    report = json.loads(result.stdout)
    assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, json.dumps(
        report["problems"], indent=1
    )[:6000]
    assert result.returncode == 0, result.stderr[-3000:]


def test_spectral_oas_ruleset_finds_nothing(tmp_path: Path) -> None:
    output = tmp_path / "spectral.json"
    result = _run(
        "node_modules/.bin/spectral",
        "lint",
        str(OPENAPI_PATH),
        "--ruleset",
        ".spectral.yaml",
        "--format",
        "json",
        "--output",
        str(output),
        "--fail-severity",
        "hint",
    )
    assert result.returncode == 0, (output.read_text() if output.exists() else "")[:6000] + (
        result.stdout + result.stderr
    )[-3000:]
    assert json.loads(output.read_text()) == []
