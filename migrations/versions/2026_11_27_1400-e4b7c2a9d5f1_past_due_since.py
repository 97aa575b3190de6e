"""Since when an account's payments are past due (README "Billing", "Past due"):
``account.past_due_since``, the first failed payment since its payments were last in order,
kept while an invoice stays unpaid. A past-due plan's units count for a grace period from it
(``api.models.account.PAST_DUE_GRACE``). An account past due now starts from its failed
payment's time.

Revision ID: e4b7c2a9d5f1
Revises: 7d1e3f5a9c2b
Create Date: 2026-11-27 14:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "e4b7c2a9d5f1"
down_revision: str | Sequence[str] | None = "7d1e3f5a9c2b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("account", sa.Column("past_due_since", sa.DateTime(timezone=True)))
    op.execute(
        "UPDATE account SET past_due_since = payment_failed_at "
        "WHERE past_due_invoice_id IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_column("account", "past_due_since")
