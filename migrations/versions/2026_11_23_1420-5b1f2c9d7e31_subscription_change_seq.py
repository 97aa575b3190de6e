"""Account: the number of plan changes Stripe has accepted, for idempotency keys.

A plan change's idempotency key is derived from the account, this number and the units asked
for, so a retry after a timeout replays the same Stripe request instead of making another.

Revision ID: 5b1f2c9d7e31
Revises: 23ed6db2cfd9
Create Date: 2026-11-23 14:20:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "5b1f2c9d7e31"
down_revision: str | Sequence[str] | None = "23ed6db2cfd9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.add_column(
        "account",
        sa.Column("subscription_change_seq", sa.Integer(), server_default="0", nullable=False),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column("account", "subscription_change_seq")
