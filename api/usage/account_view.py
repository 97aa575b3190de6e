"""Metering's part of ``GET /web/account`` in SQL, for the statement that builds the whole
body (api/account/repository.py): ``usage``, as ``api.usage.service.usage_by_cycle`` lists it
from the per-cycle rollups, over the cycles of :func:`api.usage.cycles.recent_cycle_starts_sql`."""

from __future__ import annotations

from api.usage.cycles import recent_cycle_starts_sql


def usage_by_cycle_sql(account_id: str, anchor: str, now: str, count: str) -> str:
    """SQL for the JSON array of ``UsageEntry`` of the account ``account_id`` whose cycles start
    at ``anchor``: up to ``count`` cycles, oldest first, ending with the one containing ``now``;
    zeros where nothing was metered; ``startMs`` the start in whole epoch milliseconds
    (``api.usage.cycles.epoch_ms``); ``requests`` the credits of all platforms. Reads at most
    3 rollup rows per cycle. Arguments are constant SQL text (columns, ``$n`` parameters with
    their types), never values."""
    return f"""(
        SELECT json_agg(json_build_object(
            'startMs', floor(extract(epoch FROM c.start) * 1000)::bigint,
            'requests', c.web_credits + c.mobile_credits + c.api_credits,
            'web', json_build_object('runs', c.web_runs, 'credits', c.web_credits),
            'nativeMobile',
                json_build_object('runs', c.mobile_runs, 'credits', c.mobile_credits),
            'api', json_build_object('runs', c.api_runs, 'credits', c.api_credits)
        ) ORDER BY c.start)
        FROM (
            SELECT s.start,
                coalesce(sum(u.runs) FILTER (WHERE u.platform = 'web'), 0) AS web_runs,
                coalesce(sum(u.credits) FILTER (WHERE u.platform = 'web'), 0) AS web_credits,
                coalesce(sum(u.runs) FILTER (WHERE u.platform = 'nativeMobile'), 0)
                    AS mobile_runs,
                coalesce(sum(u.credits) FILTER (WHERE u.platform = 'nativeMobile'), 0)
                    AS mobile_credits,
                coalesce(sum(u.runs) FILTER (WHERE u.platform = 'api'), 0) AS api_runs,
                coalesce(sum(u.credits) FILTER (WHERE u.platform = 'api'), 0) AS api_credits
            FROM {recent_cycle_starts_sql(anchor, now, count)} AS s
            LEFT JOIN usage AS u ON u.account_id = {account_id} AND u.cycle_start = s.start
            GROUP BY s.start
        ) AS c
    )"""  # noqa: S608 - constant SQL text only
