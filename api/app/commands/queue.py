"""``python -m api.app.commands.queue``: the job queue at a glance (README "Background work").

Prints one line per queue: its jobs per status and how long its oldest due job has waited
(``-`` when none is due), then the totals, e.g.::

    queue            todo  doing  succeeded  failed  cancelled  aborted  oldest waiting
    emails              2      1        348       0          0        0           4.2 s
    maintenance         0      0         61       0          0        0               -
    all                 2      1        409       0          0        0           4.2 s

Exit status 0; 1 when the database cannot be reached.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import psycopg

from api.app.jobs.queue import STATUSES, QueueState, queue_state
from api.app.worker import create_job_app, psycopg_conninfo
from api.kernel.config import Settings


def render(state: QueueState) -> list[str]:
    """The lines to print for ``state`` (see the module docstring)."""
    header = f"{'queue':<14}" + "".join(f"{s:>11}" for s in STATUSES) + f"{'oldest waiting':>16}"
    lines = [header]
    totals = dict.fromkeys(STATUSES, 0)
    for queue, jobs in sorted(state.jobs.items()):
        for status in STATUSES:
            totals[status] += jobs[status]
        lines.append(_line(queue, jobs, state.oldest_waiting_s.get(queue)))
    oldest = max(state.oldest_waiting_s.values(), default=None)
    lines.append(_line("all", totals, oldest))
    return lines


def _line(name: str, jobs: dict[str, int], waited_s: float | None) -> str:
    waited = "-" if waited_s is None else f"{waited_s:,.1f} s"
    return f"{name:<14}" + "".join(f"{jobs[s]:>11,}" for s in STATUSES) + f"{waited:>16}"


CONNECT_TIMEOUT_S = 10
"""How long the first connection may take before the database counts as unreachable."""


async def _reachable(database_url: str) -> bool:
    """Whether the database answers a connection: asked once before the engine's pool opens,
    which waits 30 s for a database that is not there and then fails with a traceback."""
    try:
        connection = await psycopg.AsyncConnection.connect(
            psycopg_conninfo(database_url), connect_timeout=CONNECT_TIMEOUT_S
        )
    except psycopg.OperationalError:
        return False
    await connection.close()
    return True


async def _read(settings: Settings) -> QueueState | None:
    settings.check_database()
    if not await _reachable(settings.database_url):
        return None
    app = create_job_app(settings, pool_size=1)
    async with app.open_async():
        if not await app.check_connection_async():
            return None
        return await queue_state(app)


def main(argv: list[str] | None = None) -> int:
    """Print the queue; returns the exit status."""
    argparse.ArgumentParser(description="Show the job queue.").parse_args(argv)
    state = asyncio.run(_read(Settings()))
    if state is None:
        print("the database cannot be reached", file=sys.stderr)
        return 1
    for line in render(state):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
