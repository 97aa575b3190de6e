"""The audit log names the access token that acted (README "Automation").

``audit_event.actor_token_id``: the token, when an access token made the change (its name and
creator are ``actor_name``); Activity filters by it as by a user.

Revision ID: 6d2b8f4c0e51
Revises: 5c1a7e3b9d40
Create Date: 2026-11-27 23:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "6d2b8f4c0e51"
down_revision: str | Sequence[str] | None = "5c1a7e3b9d40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("audit_event", sa.Column("actor_token_id", sa.Uuid(), nullable=True))


def downgrade() -> None:
    op.drop_column("audit_event", "actor_token_id")
