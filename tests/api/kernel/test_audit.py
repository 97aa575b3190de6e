"""``make audit`` (tools/audit.py) tells a finding from an advisory service out of reach:
outputs recorded from pip-audit 2.10 and npm 11 on a machine with only a package mirror, and
reports in the tools' documented JSON shapes."""

from __future__ import annotations

import json

from tools.audit import Outcome, classify_npm_audit, classify_pip_audit

# pip-audit with PyPI's JSON API answering 404 for every package: exit 0, all "skipped".
PIP_ALL_NOT_FOUND = json.dumps(
    {
        "dependencies": [
            {
                "name": "aiosmtplib",
                "skip_reason": "Dependency not found on PyPI and could not be audited: "
                "aiosmtplib (5.1.3)",
            },
            {
                "name": "alembic",
                "skip_reason": "Dependency not found on PyPI and could not be audited: "
                "alembic (1.20.1)",
            },
        ],
        "fixes": [],
    }
)
PIP_VULNERABLE = json.dumps(
    {
        "dependencies": [
            {"name": "alembic", "version": "1.20.1", "vulns": []},
            {
                "name": "jinja2",
                "version": "3.1.2",
                "vulns": [
                    {
                        "id": "GHSA-h5c8-rqwp-cp95",
                        "fix_versions": ["3.1.3"],
                        "aliases": ["CVE-2024-22195"],
                        "description": "xmlattr accepts keys with spaces",
                    }
                ],
            },
        ],
        "fixes": [],
    }
)
PIP_CLEAN = json.dumps(
    {
        "dependencies": [
            {"name": "alembic", "version": "1.20.1", "vulns": []},
            {"name": "anyio", "version": "4.16.0", "vulns": []},
        ],
        "fixes": [],
    }
)
PIP_CONNECTION_ERROR = (
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='pypi.org', port=443): "
    "Max retries exceeded with url: /pypi/alembic/1.20.1/json\n"
)

# npm audit against a registry whose bulk advisory endpoint answers 405 (recorded, trimmed).
NPM_405 = json.dumps(
    {
        "message": "405 Method Not Allowed - POST "
        "https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
        "method": "POST",
        "uri": "https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
        "statusCode": 405,
        "body": "",
        "error": {"summary": "", "detail": ""},
    }
)
NPM_405_STDERR = (
    "npm warn audit 405 Method Not Allowed - POST "
    "https://registry.npmjs.org/-/npm/v1/security/advisories/bulk\n"
    "npm error audit endpoint returned an error\n"
)
NPM_OFFLINE = json.dumps(
    {"error": {"code": "ENOTFOUND", "summary": "request to https://registry.npmjs.org failed"}}
)


def npm_report(**counts: int) -> str:
    levels = {"info": 0, "low": 0, "moderate": 0, "high": 0, "critical": 0} | counts
    vulnerabilities = {
        f"pkg-{level}": {"name": f"pkg-{level}", "severity": level}
        for level, n in levels.items()
        if n
    }
    return json.dumps(
        {
            "auditReportVersion": 2,
            "vulnerabilities": vulnerabilities,
            "metadata": {"vulnerabilities": levels | {"total": sum(levels.values())}},
        }
    )


class TestPipAudit:
    def test_every_package_not_found_is_the_service_out_of_reach(self) -> None:
        outcome = classify_pip_audit(0, PIP_ALL_NOT_FOUND, "No known vulnerabilities found\n")
        assert outcome.status == "unreachable"
        assert outcome.line().startswith("audit skipped: advisory service unreachable (pip-audit")

    def test_a_connection_error_is_the_service_out_of_reach(self) -> None:
        assert classify_pip_audit(1, "", PIP_CONNECTION_ERROR).status == "unreachable"

    def test_a_vulnerability_fails(self) -> None:
        outcome = classify_pip_audit(1, PIP_VULNERABLE, "Found 1 known vulnerability\n")
        assert outcome == Outcome("pip-audit", "vulnerable", "jinja2 3.1.2 (GHSA-h5c8-rqwp-cp95)")

    def test_a_clean_report_passes(self) -> None:
        assert classify_pip_audit(0, PIP_CLEAN, "").status == "clean"

    def test_any_other_failure_is_an_error_not_a_skip(self) -> None:
        outcome = classify_pip_audit(1, "", "ERROR: invalid requirement: 'alembic=1'\n")
        assert outcome.status == "error"


class TestNpmAudit:
    def test_the_advisory_endpoint_refusing_is_the_service_out_of_reach(self) -> None:
        outcome = classify_npm_audit(1, NPM_405, NPM_405_STDERR)
        assert outcome.status == "unreachable"
        assert "405" in outcome.line()

    def test_no_network_is_the_service_out_of_reach(self) -> None:
        assert classify_npm_audit(1, NPM_OFFLINE, "").status == "unreachable"

    def test_a_high_vulnerability_fails(self) -> None:
        outcome = classify_npm_audit(1, npm_report(high=1, low=2), "")
        assert outcome == Outcome("npm audit", "vulnerable", "1 high or critical: pkg-high")

    def test_lower_severities_pass(self) -> None:
        outcome = classify_npm_audit(0, npm_report(moderate=1), "")
        assert outcome.status == "clean"

    def test_any_other_failure_is_an_error_not_a_skip(self) -> None:
        outcome = classify_npm_audit(1, "", "npm error code EUSAGE\n")
        assert outcome.status == "error"


def test_the_workflow_pins_actions_by_commit_and_only_reads() -> None:
    import re
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[3] / ".github" / "workflows" / "ci.yml"
    text = path.read_text()
    assert yaml.safe_load(text)["permissions"] == {"contents": "read"}
    uses = re.findall(r"uses: (\S+)(.*)", text)
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", comment), action
