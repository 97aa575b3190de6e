"""Processed Stripe webhook events (billing: idempotency on the event id).

Revision ID: 2aa0307549f4
Revises: 0a1ac4149866
Create Date: 2026-11-21 05:54:58.862502+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "2aa0307549f4"
down_revision: str | Sequence[str] | None = "0a1ac4149866"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "stripe_event",
        sa.Column("id", sa.String(length=255), nullable=False),
        sa.Column("type", sa.String(length=100), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stripe_event")),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("stripe_event")
