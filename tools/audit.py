"""``make audit``: known vulnerabilities in the pinned dependencies (README "Supply chain").

    python -m tools.audit

Runs ``pip-audit`` on ``requirements.lock`` and ``requirements-dev.lock`` (hash-pinned, so it
installs nothing: ``--disable-pip --require-hashes``) and ``npm audit --omit=dev
--audit-level=high`` in ``web/``, then classifies each run:

- ``vulnerable``: the advisory service named a vulnerability (npm: high or critical) -> exit 1;
- ``unreachable``: the advisory service could not be asked. pip-audit then reports every
  package as "not found on PyPI" and exits 0 (PyPI's JSON API answering 404 for all of them),
  or fails with a connection error; npm prints the audit endpoint's HTTP error or a network
  error code. Printed as ``audit skipped: advisory service unreachable (...)``, exit 0, so a
  machine without the services (a mirror-only CI box) still runs the tests;
- ``clean``: every package was checked and none is affected;
- ``error``: anything else (a bad lock file, a crash) -> exit 1, never taken for unreachable.

The classification reads the tools' JSON output (``-f json``, ``--json``) and exit codes only;
``tests/api/kernel/test_audit.py`` feeds it recorded outputs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
LOCK_FILES = ("requirements.lock", "requirements-dev.lock")

Status = Literal["clean", "vulnerable", "unreachable", "error"]

# Network failures as requests/urllib3 (pip-audit) and npm name them.
_PIP_NETWORK_ERRORS = (
    "ConnectionError",
    "ConnectTimeout",
    "ReadTimeout",
    "Max retries exceeded",
    "NameResolutionError",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
)
_NPM_NETWORK_CODES = {
    "ENOTFOUND",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "EAI_AGAIN",
    "ENETUNREACH",
    "EHOSTUNREACH",
}
_NOT_ON_PYPI = "not found on PyPI"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One audit's verdict and the line printed for it."""

    tool: str
    status: Status
    detail: str

    def line(self) -> str:
        """What ``make audit`` prints for this audit."""
        if self.status == "unreachable":
            return f"audit skipped: advisory service unreachable ({self.tool}: {self.detail})"
        return f"{self.tool}: {self.status}: {self.detail}"


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def classify_pip_audit(returncode: int, stdout: str, stderr: str) -> Outcome:
    """The verdict of ``pip-audit -f json`` from its exit code and output.

    Every package of a lock file is on PyPI, so a run in which none could be looked up
    ("Dependency not found on PyPI") is the JSON API being out of reach, not a clean result.
    """
    tool = "pip-audit"
    report = _json(stdout)
    if isinstance(report, dict) and isinstance(report.get("dependencies"), list):
        deps: list[dict[str, Any]] = report["dependencies"]
        vulnerable = [
            f"{d.get('name')} {d.get('version')} ({', '.join(str(v.get('id')) for v in vulns)})"
            for d in deps
            if (vulns := d.get("vulns"))
        ]
        if vulnerable:
            return Outcome(tool, "vulnerable", "; ".join(vulnerable))
        skipped = [d for d in deps if d.get("skip_reason")]
        not_found = [d for d in skipped if _NOT_ON_PYPI in str(d["skip_reason"])]
        if deps and len(not_found) == len(deps):
            return Outcome(
                tool,
                "unreachable",
                f"PyPI's JSON API found none of the {len(deps)} pinned packages",
            )
        if returncode != 0:
            return Outcome(tool, "error", f"exit {returncode}: {stderr.strip()[-500:]}")
        note = f", {len(skipped)} skipped" if skipped else ""
        return Outcome(tool, "clean", f"{len(deps) - len(skipped)} packages checked{note}")
    if returncode != 0 and any(marker in stderr for marker in _PIP_NETWORK_ERRORS):
        last = next((ln for ln in reversed(stderr.splitlines()) if ln.strip()), "")
        return Outcome(tool, "unreachable", last.strip()[:300])
    return Outcome(tool, "error", f"exit {returncode}: {stderr.strip()[-500:]}")


def classify_npm_audit(returncode: int, stdout: str, stderr: str) -> Outcome:
    """The verdict of ``npm audit --json --audit-level=high`` from its exit code and output."""
    tool = "npm audit"
    report = _json(stdout)
    if isinstance(report, dict) and "auditReportVersion" in report:
        counts = report.get("metadata", {}).get("vulnerabilities", {})
        serious = int(counts.get("high", 0)) + int(counts.get("critical", 0))
        if serious or returncode != 0:
            names = sorted(
                name
                for name, v in report.get("vulnerabilities", {}).items()
                if v.get("severity") in ("high", "critical")
            )
            return Outcome(tool, "vulnerable", f"{serious} high or critical: {', '.join(names)}")
        return Outcome(tool, "clean", f"no high or critical ({int(counts.get('total', 0))} lower)")
    if isinstance(report, dict):
        error: dict[str, Any] = report["error"] if isinstance(report.get("error"), dict) else {}
        code = report.get("code") or error.get("code")
        status = report.get("statusCode")
        if code in _NPM_NETWORK_CODES or (
            isinstance(status, int) and "/security/" in str(report.get("uri", ""))
        ):
            return Outcome(
                tool, "unreachable", str(report.get("message") or error.get("summary") or code)
            )
    if returncode != 0 and "audit endpoint returned an error" in stderr:
        return Outcome(tool, "unreachable", "the registry's audit endpoint returned an error")
    if returncode == 0:
        return Outcome(tool, "clean", "no high or critical")
    return Outcome(tool, "error", f"exit {returncode}: {stderr.strip()[-500:]}")


def _run(command: list[str], cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def main() -> int:
    """Run both audits; exit 1 if either found a vulnerability or failed otherwise."""
    pip_command = [sys.executable, "-m", "pip_audit", "--disable-pip", "--require-hashes"]
    for lock in LOCK_FILES:
        pip_command += ["-r", lock]
    pip_command += ["-f", "json", "--progress-spinner", "off"]
    outcomes = [
        classify_pip_audit(*_run(pip_command, ROOT)),
        classify_npm_audit(
            *_run(["npm", "audit", "--omit=dev", "--audit-level=high", "--json"], ROOT / "web")
        ),
    ]
    for outcome in outcomes:
        print(outcome.line())
    return 1 if any(o.status in ("vulnerable", "error") for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
