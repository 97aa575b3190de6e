"""Parameter types that more than one command takes (click's ``ParamType``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import click


class Moment(click.ParamType[datetime]):
    """A time in ISO 8601: a date (its midnight) or a date and time, in UTC unless it names
    its offset (``2026-03-01``, ``2026-03-01T09:30``, ``2026-03-01T09:30+01:00``)."""

    name = "TIME"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        """The aware datetime."""
        if isinstance(value, datetime):
            return value
        try:
            moment = datetime.fromisoformat(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is not an ISO 8601 date or time", param, ctx)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
