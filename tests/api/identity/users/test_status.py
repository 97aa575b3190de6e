"""Where a user stands (``api.identity.users.status``): the rule, and its SQL (the account view's
statement) saying the same for every combination of what it reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI

from api.identity.users.schemas import UserStatus
from api.identity.users.status import user_status, user_status_sql
from api.kernel.db import driver_connection
from api.models import User

NOW = datetime(2026, 11, 21, 10, 15, 30, 250_000, tzinfo=UTC)
EARLIER = NOW - timedelta(days=3)
LATER = NOW + timedelta(days=3)

# (invited_at, signed_in_at, invitation_expires_at) -> the status at NOW.
CASES = [
    ((None, None, None), UserStatus.ACTIVE),  # joined without an invitation
    ((None, EARLIER, None), UserStatus.ACTIVE),
    ((None, None, EARLIER), UserStatus.ACTIVE),
    ((EARLIER, None, LATER), UserStatus.PENDING),
    ((EARLIER, None, None), UserStatus.PENDING),  # an invitation with no end
    ((EARLIER, None, NOW), UserStatus.EXPIRED),  # it ends at its expiry instant
    ((EARLIER, None, EARLIER), UserStatus.EXPIRED),
    ((EARLIER, EARLIER, EARLIER), UserStatus.ACTIVE),  # signed in: the expiry no longer counts
    ((EARLIER, EARLIER, LATER), UserStatus.ACTIVE),
]


@pytest.mark.parametrize(("times", "status"), CASES)
async def test_status_in_python_and_in_sql(
    app: FastAPI, times: tuple[datetime | None, ...], status: UserStatus
) -> None:
    invited_at, signed_in_at, expires_at = times
    user = User(invited_at=invited_at, signed_in_at=signed_in_at, invitation_expires_at=expires_at)
    assert user_status(user, NOW) is status
    sql = f"""SELECT {user_status_sql("m", "CAST($4 AS timestamptz)")}
        FROM (SELECT CAST($1 AS timestamptz) AS invited_at,
                     CAST($2 AS timestamptz) AS signed_in_at,
                     CAST($3 AS timestamptz) AS invitation_expires_at) AS m"""  # noqa: S608
    async with driver_connection(app.state.resources.read_engine) as connection:
        assert await connection.fetchval(sql, *times, NOW) == status.value
