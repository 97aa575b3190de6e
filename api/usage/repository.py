"""Queries on the per-cycle ``usage`` rollups."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.usage.models import Usage


async def usage_since(db: AsyncSession, account_id: uuid.UUID, since: datetime) -> Sequence[Usage]:
    """Rollup rows of one account with ``cycle_start >= since`` (at most 3 per cycle)."""
    result = await db.scalars(
        select(Usage)
        .where(Usage.account_id == account_id, Usage.cycle_start >= since)
        .order_by(Usage.cycle_start)
    )
    return result.all()
