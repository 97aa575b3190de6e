"""Passkeys (README "Passkeys"): the console's own name and last use of each passkey a pool
user registered at Cognito, which has no rename.

Revision ID: b7e1d4a93c25
Revises: 9a4c6e2f7b18
Create Date: 2026-11-28 11:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "b7e1d4a93c25"
down_revision: str | Sequence[str] | None = "9a4c6e2f7b18"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "passkey",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("identity_sub", sa.String(length=64), nullable=False),
        sa.Column("credential_id", sa.String(length=1364), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkey")),
        sa.UniqueConstraint(
            "identity_sub", "credential_id", name=op.f("uq_passkey_identity_sub_credential_id")
        ),
        sa.UniqueConstraint("identity_sub", "name", name=op.f("uq_passkey_identity_sub_name")),
    )


def downgrade() -> None:
    op.drop_table("passkey")
