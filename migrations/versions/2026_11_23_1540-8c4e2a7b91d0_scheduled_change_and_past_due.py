"""Account: the plan change scheduled for the end of the paid period, and the invoice that is
past due.

Revision ID: 8c4e2a7b91d0
Revises: 5b1f2c9d7e31
Create Date: 2026-11-23 15:40:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "8c4e2a7b91d0"
down_revision: str | Sequence[str] | None = "5b1f2c9d7e31"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.add_column("account", sa.Column("scheduled_units", sa.Integer(), nullable=True))
    op.add_column(
        "account", sa.Column("scheduled_change_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column("account", sa.Column("past_due_invoice_id", sa.String(255), nullable=True))
    op.add_column("account", sa.Column("past_due_amount", sa.Integer(), nullable=True))
    op.add_column("account", sa.Column("past_due_currency", sa.String(3), nullable=True))
    op.create_check_constraint(
        op.f("ck_account_scheduled_units_range"),
        "account",
        "scheduled_units IS NULL OR (scheduled_units >= 0 AND scheduled_units <= 20)",
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_constraint(op.f("ck_account_scheduled_units_range"), "account", type_="check")
    for column in (
        "past_due_currency",
        "past_due_amount",
        "past_due_invoice_id",
        "scheduled_change_at",
        "scheduled_units",
    ):
        op.drop_column("account", column)
