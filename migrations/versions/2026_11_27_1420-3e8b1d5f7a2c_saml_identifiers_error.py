"""Why Cognito refused a SAML connection's identifiers at the hourly upkeep, and when
(README "SAML single sign-on", Daily upkeep): ``saml_connection.identifiers_error``, shown on
the set-up, and ``saml_connection.identifiers_failed_at``, so a refusal is tried again a day
later rather than at every pass. Both null until a refusal; nothing to backfill.

Revision ID: 3e8b1d5f7a2c
Revises: a1ccd969c8f4
Create Date: 2026-11-27 14:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "3e8b1d5f7a2c"
down_revision: str | Sequence[str] | None = "a1ccd969c8f4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("saml_connection", sa.Column("identifiers_error", sa.Text()))
    op.add_column("saml_connection", sa.Column("identifiers_failed_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("saml_connection", "identifiers_failed_at")
    op.drop_column("saml_connection", "identifiers_error")
