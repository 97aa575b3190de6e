"""Queries on ``user``; every tenant query takes the caller's account id."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncSession

from api.models import AuthType, User


async def list_users(
    db: AsyncSession, account_id: uuid.UUID
) -> Sequence[Row[uuid.UUID, str, str, str, AuthType]]:
    """Users of one account (id, names, email, auth type), by last name then first name."""
    result = await db.execute(
        select(User.id, User.first_name, User.last_name, User.email, User.auth_type)
        .where(User.account_id == account_id)
        .order_by(User.last_name, User.first_name, User.email)
    )
    return result.all()
