"""``python -m api.app.commands.retention``: one pass of the audit log's retention (create the
coming
month partitions, drop the expired ones: ``api/audit/retention.py``) now, beside the job
worker's periodic passes (``AUDIT_RETENTION_CRON``), or instead of them when that is empty.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from api.audit.retention import run_once
from api.kernel.config import Settings
from api.kernel.http.logging import configure_logging


def main(argv: list[str] | None = None) -> int:
    """Run one pass from the command line; returns the exit status."""
    argparse.ArgumentParser(
        description="Create and drop the audit log's month partitions."
    ).parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_format, settings.log_level)
    report = asyncio.run(run_once(settings))
    print(f"audit log: {report.created} partitions created, {report.dropped} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
