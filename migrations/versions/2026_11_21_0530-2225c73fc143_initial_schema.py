"""Initial schema: account, user and per-cycle usage rollups (SPEC 3).

Revision ID: 2225c73fc143
Revises:
Create Date: 2026-11-21 05:30:10.896562+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "2225c73fc143"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "account",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("api_key", sa.String(length=80), nullable=False),
        sa.Column("subscription_units", sa.Integer(), server_default="0", nullable=False),
        sa.Column("unit_plan_requests", sa.Integer(), server_default="0", nullable=False),
        sa.Column("free_plan_requests", sa.Integer(), server_default="0", nullable=False),
        sa.Column("require_google_sso", sa.Boolean(), server_default="false", nullable=False),
        sa.Column("sso_domains", sa.ARRAY(sa.Text()), server_default="{}", nullable=False),
        sa.Column(
            "billing_cycle_anchor",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("stripe_customer_id", sa.String(length=255), nullable=True),
        sa.Column("stripe_subscription_id", sa.String(length=255), nullable=True),
        sa.Column("card_brand", sa.String(length=40), nullable=True),
        sa.Column("card_last4", sa.String(length=4), nullable=True),
        sa.Column("card_exp_month", sa.Integer(), nullable=True),
        sa.Column("card_exp_year", sa.Integer(), nullable=True),
        sa.Column("payment_failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("length(trim(name)) > 0", name=op.f("ck_account_name_not_blank")),
        sa.CheckConstraint(
            "subscription_units >= 0 AND subscription_units <= 20",
            name=op.f("ck_account_units_range"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_account")),
        sa.UniqueConstraint("api_key", name=op.f("uq_account_api_key")),
        sa.UniqueConstraint("stripe_customer_id", name=op.f("uq_account_stripe_customer_id")),
    )
    op.create_table(
        "usage",
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "platform", sa.Enum("web", "nativeMobile", "api", name="platform"), nullable=False
        ),
        sa.Column("runs", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("credits", sa.BigInteger(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_usage_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "cycle_start", "platform", name=op.f("pk_usage")),
    )
    op.create_table(
        "user",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("identity_id", sa.String(length=255), nullable=False),
        sa.Column("first_name", sa.String(length=100), nullable=False),
        sa.Column("last_name", sa.String(length=100), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column(
            "auth_type", sa.Enum("Email", "Google SSO", "GitHub", name="auth_type"), nullable=False
        ),
        sa.Column("elevation_role", sa.String(length=40), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_user_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user")),
        sa.UniqueConstraint("identity_id", name=op.f("uq_user_identity_id")),
    )
    op.create_index(op.f("ix_user_account_id"), "user", ["account_id"], unique=False)
    op.create_index("uq_user_email_lower", "user", [sa.literal_column("lower(email)")], unique=True)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index("uq_user_email_lower", table_name="user")
    op.drop_index(op.f("ix_user_account_id"), table_name="user")
    op.drop_table("user")
    op.drop_table("usage")
    op.drop_table("account")
    sa.Enum(name="auth_type").drop(op.get_bind())
    sa.Enum(name="platform").drop(op.get_bind())
