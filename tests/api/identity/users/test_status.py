"""Where a user stands (``api.identity.users.status``): the rule, for every combination of what
it reads, from the columns and from a row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from api.identity.users.schemas import UserStatus
from api.identity.users.status import status_at, user_status
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
def test_status_of_the_columns_and_of_a_row(
    times: tuple[datetime | None, datetime | None, datetime | None], status: UserStatus
) -> None:
    # The account view maps the three columns (status_at), the user calls a loaded row.
    invited_at, signed_in_at, expires_at = times
    user = User(invited_at=invited_at, signed_in_at=signed_in_at, invitation_expires_at=expires_at)
    assert status_at(*times, NOW) is status
    assert user_status(user, NOW) is status
