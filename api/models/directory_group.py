"""The ``directory_group`` and ``directory_group_member`` tables: the groups an account's
directory sends over SCIM, as it names them, their members, and the role each gives in the
console (README "Directory sync (SCIM)")."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    DateTime,
    Enum,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    PrimaryKeyConstraint,
    String,
    func,
)
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base
from api.models.user import Role

LEGACY_GROUP_IDS = ("owners", "admins", "members")
"""The ids of the three groups the console had before it took the directory's own groups;
the upgrade made them, mapped to their roles, for every account that had a SCIM token, so the
directories that pushed them keep working. Every other group's id is a UUID."""


class DirectoryGroup(Base):
    """One group of an account's directory.

    ``id`` is the group's SCIM id (a UUID, or one of :data:`LEGACY_GROUP_IDS`), unique in its
    account; ``display_name`` is unique in the account, case-insensitively (a second group
    of a name is 409 ``uniqueness``); ``external_id`` is the directory's own id of it;
    ``role`` is the role its members get in the console (None: it gives none), set in User
    Management, never by the directory.
    """

    __tablename__ = "directory_group"
    __table_args__ = (PrimaryKeyConstraint("account_id", "id", name="pk_directory_group"),)

    account_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("account.id", ondelete="CASCADE"))
    id: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(255))
    external_id: Mapped[str | None] = mapped_column(String(255))
    role: Mapped[Role | None] = mapped_column(
        Enum(Role, name="user_role", values_callable=lambda e: [m.value for m in e])
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


Index(
    "uq_directory_group_display_name",
    DirectoryGroup.account_id,
    func.lower(DirectoryGroup.display_name),
    unique=True,
)


class DirectoryGroupMember(Base):
    """A user of the account in one of its directory's groups; goes with the user or the
    group. ``display`` is the member's ``display`` as the directory sent it (None: it sent
    none, and the console's name of the user is shown)."""

    __tablename__ = "directory_group_member"
    __table_args__ = (
        PrimaryKeyConstraint("account_id", "group_id", "user_id", name="pk_directory_group_member"),
        ForeignKeyConstraint(
            ["account_id", "group_id"],
            ["directory_group.account_id", "directory_group.id"],
            name="fk_directory_group_member_group",
            ondelete="CASCADE",
        ),
    )

    account_id: Mapped[uuid.UUID]
    group_id: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), index=True
    )
    display: Mapped[str | None] = mapped_column(String(255))
