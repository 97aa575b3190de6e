"""SAML single sign-on (README "SAML single sign-on").

- ``auth_type`` gains ``SAML SSO``: people who sign in through an account's SAML connection.
- ``account.require_saml_sso``: the account's users sign in through its SAML connection only;
  never together with ``require_google_sso`` (``ck_account_one_sso_requirement``).
- ``saml_connection``: an account's SAML identity provider (at most one per account), which
  Cognito knows by ``provider_name``.

Revision ID: f2a6c8e1d4b7
Revises: f1a2b3c4d5e6
Create Date: 2026-11-27 09:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "f2a6c8e1d4b7"
down_revision: str | Sequence[str] | None = "f1a2b3c4d5e6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A new enum value is usable only once committed (PostgreSQL: ALTER TYPE ... ADD VALUE).
    with op.get_context().autocommit_block():
        op.execute("ALTER TYPE auth_type ADD VALUE IF NOT EXISTS 'SAML SSO'")
    op.add_column(
        "account",
        sa.Column("require_saml_sso", sa.Boolean(), server_default="false", nullable=False),
    )
    op.create_check_constraint(
        "ck_account_one_sso_requirement",
        "account",
        "NOT (require_google_sso AND require_saml_sso)",
    )
    op.create_table(
        "saml_connection",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("provider_name", sa.String(32), nullable=False),
        sa.Column("metadata_url", sa.String(2048), nullable=True),
        sa.Column("metadata_xml", sa.Text(), nullable=False),
        sa.Column("idp_entity_id", sa.String(1024), nullable=False),
        sa.Column("sso_url", sa.String(2048), nullable=False),
        sa.Column("certificate_expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("idp_identifiers", postgresql.ARRAY(sa.String(253)), nullable=False),
        sa.Column("metadata_checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("metadata_error", sa.Text(), nullable=True),
        sa.Column("expiry_notice_for", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_test_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_test_email", sa.String(320), nullable=True),
        sa.Column("last_test_first_name", sa.String(100), nullable=True),
        sa.Column("last_test_last_name", sa.String(100), nullable=True),
        sa.Column("last_test_problem", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name="fk_saml_connection_account_id_account",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_saml_connection"),
        sa.UniqueConstraint("account_id", name="uq_saml_connection_account_id"),
        sa.UniqueConstraint("provider_name", name="uq_saml_connection_provider_name"),
    )


def downgrade() -> None:
    op.drop_table("saml_connection")
    op.drop_constraint("ck_account_one_sso_requirement", "account", type_="check")
    op.drop_column("account", "require_saml_sso")
    # PostgreSQL cannot drop an enum value: users of it become email users, the type is rebuilt.
    op.execute("""UPDATE "user" SET auth_type = 'Email' WHERE auth_type = 'SAML SSO'""")
    op.execute("ALTER TYPE auth_type RENAME TO auth_type_old")
    op.execute("CREATE TYPE auth_type AS ENUM ('Email', 'Google SSO', 'GitHub')")
    op.execute(
        'ALTER TABLE "user" ALTER COLUMN auth_type TYPE auth_type USING auth_type::text::auth_type'
    )
    op.execute("DROP TYPE auth_type_old")
