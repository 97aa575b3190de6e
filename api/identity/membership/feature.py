"""Membership (who may join, leave and hold which role): what it brings to the app and the
worker (api/feature.py): the invitations' throttle, which User Management and the directory
both count, and the clean-up of pool users a crash left without a console row."""

from __future__ import annotations

from datetime import timedelta

import structlog

from api.feature import Feature, PeriodicTask
from api.identity.membership.pool_users import delete_orphans
from api.identity.membership.throttles import INVITATION
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)


async def delete_orphan_users(resources: JobResources) -> None:
    """Delete the pool users whose creation never committed a row
    (api/identity/membership/pool_users.py)."""
    done = await delete_orphans(
        resources.sessionmaker,
        resources.cognito,
        older_than=timedelta(minutes=resources.settings.membership.orphan_user_age_min),
    )
    log.info("orphan_users", deleted=done.deleted, settled=done.settled, failed=done.failed)


FEATURE = Feature(
    name="membership",
    throttles=(INVITATION,),
    periodic=(
        PeriodicTask("delete_orphan_users", "ORPHAN_USER_CLEANUP_CRON", delete_orphan_users),
    ),
)
