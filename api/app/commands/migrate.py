"""``python -m api.app.commands.migrate``: ``alembic upgrade head`` that N replicas may start
together
(the advisory lock and the schema check: ``api/kernel/migrations.py``).

    DATABASE_URL=postgresql+asyncpg://... python -m api.app.commands.migrate

Exit status 0 when the schema is at head, 1 with the error on stderr otherwise.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from api.kernel.config import Settings
from api.kernel.migrations import head_revision, upgrade


def main() -> None:
    """Run :func:`~api.kernel.migrations.upgrade` on ``DATABASE_URL``
    (``api.kernel.config.Settings``); exit 1 on failure."""
    settings = Settings()
    settings.check_database()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s [%(name)s] %(message)s")
    try:
        asyncio.run(upgrade(settings.database_url))
    except Exception as exc:
        print(f"migration failed: {exc!r}", file=sys.stderr)
        raise SystemExit(1) from exc
    print(f"schema at {head_revision()}", file=sys.stderr)


if __name__ == "__main__":
    main()
