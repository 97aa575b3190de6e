"""Account: Stripe times of the newest subscription and invoice events applied.

Stripe may deliver webhook events out of order; an older event must not undo a newer state.

Revision ID: 23ed6db2cfd9
Revises: c76bc0a406bb
Create Date: 2026-11-21 06:21:59.833971+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "23ed6db2cfd9"
down_revision: str | Sequence[str] | None = "c76bc0a406bb"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.add_column(
        "account", sa.Column("subscription_synced_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column(
        "account", sa.Column("payment_synced_at", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column("account", "payment_synced_at")
    op.drop_column("account", "subscription_synced_at")
