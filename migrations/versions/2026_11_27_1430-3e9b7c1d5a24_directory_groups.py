"""The directory's own groups (README "Directory sync (SCIM)"): ``directory_group`` (an
account's groups as its directory names them, each mapped to a role in the console or to none)
and ``directory_group_member`` (with the member's ``display`` as the directory sent it).

Until now the console had three fixed groups, ``owners``, ``admins`` and ``members``, whose
members were the users of that role. Every account with a SCIM token gets them as groups of
its directory, under the same ids and names, mapped to those roles and holding those users,
so a directory that pushed them goes on as before.

Revision ID: 3e9b7c1d5a24
Revises: 3e8b1d5f7a2c
Create Date: 2026-11-27 14:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "3e9b7c1d5a24"
down_revision: str | Sequence[str] | None = "3e8b1d5f7a2c"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The three groups before this revision: (id, displayName, role).
_LEGACY = (
    ("owners", "Owners", "Owner"),
    ("admins", "Admins", "Admin"),
    ("members", "Members", "Member"),
)


def upgrade() -> None:
    user_role = postgresql.ENUM(name="user_role", create_type=False)
    op.create_table(
        "directory_group",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(255), nullable=False),
        sa.Column("external_id", sa.String(255), nullable=True),
        sa.Column("role", user_role, nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name="fk_directory_group_account_id_account",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "id", name="pk_directory_group"),
    )
    op.create_index(
        "uq_directory_group_display_name",
        "directory_group",
        ["account_id", sa.text("lower(display_name)")],
        unique=True,
    )
    op.create_table(
        "directory_group_member",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("group_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("display", sa.String(255), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id", "group_id"],
            ["directory_group.account_id", "directory_group.id"],
            name="fk_directory_group_member_group",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name="fk_directory_group_member_user_id_user",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "account_id", "group_id", "user_id", name="pk_directory_group_member"
        ),
    )
    op.create_index("ix_directory_group_member_user_id", "directory_group_member", ["user_id"])
    for group_id, name, role in _LEGACY:
        op.execute(
            sa.text(
                "INSERT INTO directory_group (account_id, id, display_name, role)"
                " SELECT DISTINCT account_id, :id, :name, CAST(:role AS user_role)"
                " FROM scim_token"
            ).bindparams(id=group_id, name=name, role=role)
        )
        op.execute(
            sa.text(
                "INSERT INTO directory_group_member (account_id, group_id, user_id)"
                ' SELECT u.account_id, :id, u.id FROM "user" AS u'
                " WHERE u.role = CAST(:role AS user_role)"
                " AND u.account_id IN (SELECT account_id FROM scim_token)"
            ).bindparams(id=group_id, role=role)
        )


def downgrade() -> None:
    op.drop_index("ix_directory_group_member_user_id", table_name="directory_group_member")
    op.drop_table("directory_group_member")
    op.drop_index("uq_directory_group_display_name", table_name="directory_group")
    op.drop_table("directory_group")
