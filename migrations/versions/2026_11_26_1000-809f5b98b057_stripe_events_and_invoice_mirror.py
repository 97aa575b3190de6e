"""Stripe webhook events applied by the job engine, and the invoice mirror (README "Billing",
"Background work").

- ``stripe_event`` keeps what a worker needs to apply the event later: Stripe's time of it
  (``occurred_at``), its ``data.object`` (``data``) and when it was applied
  (``processed_at``). The rows already there were applied when received: ``processed_at`` :=
  ``created_at``.
- ``stripe_invoice``: the accounts' invoices as Stripe last told us. Starts empty: a migration
  cannot read Stripe; ``python -m api.app.commands.reconcile --fix`` fills it from Stripe (README
  "Reconciliation"), and the webhooks keep it in step.

Revision ID: 809f5b98b057
Revises: e4b8c2d6f1a9
Create Date: 2026-11-26 10:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "809f5b98b057"
down_revision: str | Sequence[str] | None = "e4b8c2d6f1a9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("stripe_event", sa.Column("occurred_at", sa.DateTime(timezone=True)))
    op.add_column("stripe_event", sa.Column("data", postgresql.JSONB(astext_type=sa.Text())))
    op.add_column("stripe_event", sa.Column("processed_at", sa.DateTime(timezone=True)))
    op.execute("UPDATE stripe_event SET processed_at = created_at")
    op.create_table(
        "stripe_invoice",
        sa.Column("id", sa.String(255), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.String(100), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("amount_due", sa.Integer(), nullable=False),
        sa.Column("amount_paid", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("hosted_invoice_url", sa.Text(), nullable=True),
        sa.Column("invoice_pdf", sa.Text(), nullable=True),
        sa.Column("payment_failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("synced_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_stripe_invoice_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stripe_invoice")),
    )
    op.create_index(
        "ix_stripe_invoice_account_id_created_at",
        "stripe_invoice",
        ["account_id", "created_at", "id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_stripe_invoice_account_id_created_at", table_name="stripe_invoice")
    op.drop_table("stripe_invoice")
    op.drop_column("stripe_event", "processed_at")
    op.drop_column("stripe_event", "data")
    op.drop_column("stripe_event", "occurred_at")
