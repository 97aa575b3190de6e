"""The SAML identity a user signed in with until their account removed its SAML connection
(README "SAML single sign-on"): ``user.retired_identity_sub``, its Cognito ``sub``, so that
identity's remaining access tokens are told why they no longer open the account. Indexed where
set; read only when a token matches no user.

Revision ID: 7d1e3f5a9c2b
Revises: 6b2d8e4f0a13
Create Date: 2026-11-27 13:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "7d1e3f5a9c2b"
down_revision: str | Sequence[str] | None = "6b2d8e4f0a13"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("user", sa.Column("retired_identity_sub", sa.String(64)))
    op.create_index(
        "ix_user_retired_identity_sub",
        "user",
        ["retired_identity_sub"],
        postgresql_where=sa.text("retired_identity_sub IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_user_retired_identity_sub", table_name="user")
    op.drop_column("user", "retired_identity_sub")
