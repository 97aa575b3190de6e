"""The job engine's tables (README "Background work"): procrastinate 3.10.0's schema, applied as
procrastinate ships it (``migrations/sql/procrastinate_3.10.0.sql``): the jobs, their events,
the workers' heartbeats, the periodic defers, and the functions and triggers its workers and
``procrastinate_defer_jobs_v1`` (the API's enqueue, in the request's own transaction) use.

Revision ID: e4b8c2d6f1a9
Revises: d7e2a9b4c1f3
Create Date: 2026-11-25 19:00:00+00:00

"""

import re
from collections.abc import Sequence
from pathlib import Path

from alembic import op
from sqlalchemy.util import await_only

# revision identifiers, used by Alembic.
revision: str = "e4b8c2d6f1a9"
down_revision: str | Sequence[str] | None = "d7e2a9b4c1f3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA = Path(__file__).parents[1] / "sql" / "procrastinate_3.10.0.sql"
TABLES = (
    "procrastinate_events",
    "procrastinate_periodic_defers",
    "procrastinate_jobs",
    "procrastinate_workers",
)


def _execute_script(sql: str) -> None:
    """Run a script of many statements (PL/pgSQL bodies included) as one simple query: asyncpg's
    ``execute`` without arguments takes the simple protocol, which SQLAlchemy's prepared
    statements do not."""
    driver = op.get_bind().connection.driver_connection
    assert driver is not None
    await_only(driver.execute(sql))


def upgrade() -> None:
    _execute_script(SCHEMA.read_text(encoding="utf-8"))


def downgrade() -> None:
    schema = SCHEMA.read_text(encoding="utf-8")
    # CASCADE: the triggers, and the functions returning a table's row type, go with the
    # tables; the other functions and the types are named in the schema.
    op.execute(f"DROP TABLE {', '.join(TABLES)} CASCADE")
    for function in re.findall(r"^CREATE FUNCTION (\w+)\(", schema, flags=re.MULTILINE):
        op.execute(f"DROP FUNCTION IF EXISTS {function}")
    for type_ in reversed(re.findall(r"^CREATE TYPE (\w+)", schema, flags=re.MULTILINE)):
        op.execute(f"DROP TYPE {type_}")
