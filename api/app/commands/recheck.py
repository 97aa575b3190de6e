"""``python -m api.app.commands.recheck [--all]``: re-check the TXT records of the verified domains
that
are due once (``--all``: every verified domain now), beside the job worker's periodic passes
(``DOMAIN_RECHECK_CRON``) or instead of them when that is empty (``api/identity/sso/recheck.py``).

Prints what it did; exit status 2 when some lookup failed, 0 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from api.identity.sso.recheck import run_once
from api.kernel.config import Settings
from api.kernel.http.logging import configure_logging


def main(argv: list[str] | None = None) -> int:
    """Run one pass from the command line; returns the exit status (2: a lookup failed)."""
    parser = argparse.ArgumentParser(description="Re-check the TXT records of verified domains.")
    parser.add_argument("--all", action="store_true", help="every verified domain, due or not")
    args = parser.parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    report = asyncio.run(run_once(settings, every=args.all))
    print(
        f"checked {report.checked}: {report.kept} still verified, {report.lost} lost, "
        f"{report.unreachable} not reachable"
    )
    return 2 if report.unreachable else 0


if __name__ == "__main__":
    sys.exit(main())
