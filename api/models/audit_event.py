"""The ``audit_event`` table: who changed what in an account, and when (README "Audit log").

Append-only: the migration revokes UPDATE, DELETE and TRUNCATE from the application's role and
a trigger refuses them for every role (superusers included). The table is partitioned by month
on ``occurred_at``; retention drops whole months older than a year (``api/audit/retention.py``),
which needs no DELETE privilege.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Index, PrimaryKeyConstraint, String, func
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id


class AuditEvent(Base):
    """One recorded change (or sign-in) in one account.

    - ``actor_*``: who did it, as they were then (the user may be renamed or deleted later;
      ``actor_user_id`` is null for a sign-in failure of an unknown password; ``actor_token_id``
      is the access token that acted, when one did);
    - ``client_address``: the client's IP address (api/kernel/http/client_address.py);
    - ``action``: a value of ``api.audit.AuditAction`` (``user.invited``...);
    - ``target_*``: what it was done to (``user``, ``account``, ``api_key``, ...), its id and
      how the console names it (``Grace Hopper <grace@acme.dev>``);
    - ``changes``: ``{field: {"from": before, "to": after}}`` of the changed fields, never a
      secret (no password, no API key beyond its last four characters).
    """

    __tablename__ = "audit_event"
    __table_args__ = (
        PrimaryKeyConstraint("occurred_at", "id", name="pk_audit_event"),
        Index("ix_audit_event_account_id_occurred_at", "account_id", "occurred_at", "id"),
        {"postgresql_partition_by": "RANGE (occurred_at)"},
    )

    id: Mapped[uuid.UUID] = mapped_column(default=new_id)
    # clock_timestamp(), not now(): events of one transaction keep the order they happened in.
    occurred_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.clock_timestamp()
    )
    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("account.id"))
    actor_user_id: Mapped[uuid.UUID | None]
    actor_token_id: Mapped[uuid.UUID | None]
    actor_name: Mapped[str] = mapped_column(String(201))
    actor_email: Mapped[str] = mapped_column(String(320))
    client_address: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(64))
    target_type: Mapped[str | None] = mapped_column(String(32))
    target_id: Mapped[str | None] = mapped_column(String(64))
    target_label: Mapped[str | None] = mapped_column(String(600))
    changes: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
