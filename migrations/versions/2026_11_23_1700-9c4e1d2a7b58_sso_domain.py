"""SSO domains with DNS proof: the ``sso_domain`` table replaces
``account.sso_domains``.

Accounts that require Google SSO today keep working for their existing users (they sign in
with Google as before); each domain they listed is carried over as Pending, with a fresh
token, so auto-join of new Google identities pauses until the account verifies the domain.

Revision ID: 9c4e1d2a7b58
Revises: 8c4e2a7b91d0
Create Date: 2026-11-24 09:00:00+00:00

"""

import secrets
import uuid
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "9c4e1d2a7b58"
down_revision: str | Sequence[str] | None = "8c4e2a7b91d0"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATES = ("Pending", "Verified", "Failed", "Lost")
FAILURES = ("DomainNotFound", "RecordNotFound", "WrongToken", "VerifiedByAnotherAccount")


def upgrade() -> None:
    """Create ``sso_domain``, carry the listed domains over as Pending, drop the array."""
    state = postgresql.ENUM(*STATES, name="sso_domain_state", create_type=False)
    failure = postgresql.ENUM(*FAILURES, name="sso_domain_failure", create_type=False)
    state.create(op.get_bind())
    failure.create(op.get_bind())
    table = op.create_table(
        "sso_domain",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("domain", sa.String(length=253), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("state", state, nullable=False),
        sa.Column("failure", failure, nullable=True),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_sso_domain_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sso_domain")),
        sa.UniqueConstraint("account_id", "domain", name="uq_sso_domain_account_id_domain"),
    )
    op.create_index(op.f("ix_sso_domain_account_id"), "sso_domain", ["account_id"])
    op.create_index(
        "uq_sso_domain_verified_domain",
        "sso_domain",
        ["domain"],
        unique=True,
        postgresql_where=sa.text("state = 'Verified'"),
    )
    bind = op.get_bind()
    listed = bind.execute(
        sa.text(
            "SELECT DISTINCT id, lower(trim(trailing '.' from d)) AS domain "
            "FROM account, unnest(sso_domains) AS d WHERE trim(d) <> ''"
        )
    ).all()
    if listed:
        op.bulk_insert(
            table,
            [
                {
                    "id": uuid.uuid4(),
                    "account_id": account_id,
                    "domain": domain,
                    "token": secrets.token_urlsafe(24),
                    "state": "Pending",
                }
                for account_id, domain in listed
            ],
        )
    op.drop_column("account", "sso_domains")


def downgrade() -> None:
    """Put the domains back in ``account.sso_domains`` (verified ones first) and drop the
    table."""
    op.add_column(
        "account",
        sa.Column("sso_domains", sa.ARRAY(sa.Text()), server_default="{}", nullable=False),
    )
    op.execute(
        "UPDATE account SET sso_domains = d.domains FROM ("
        " SELECT account_id, array_agg(domain ORDER BY state = 'Verified' DESC, domain)"
        " AS domains FROM sso_domain GROUP BY account_id) AS d"
        " WHERE d.account_id = account.id"
    )
    op.drop_index("uq_sso_domain_verified_domain", table_name="sso_domain")
    op.drop_index(op.f("ix_sso_domain_account_id"), table_name="sso_domain")
    op.drop_table("sso_domain")
    sa.Enum(name="sso_domain_failure").drop(op.get_bind())
    sa.Enum(name="sso_domain_state").drop(op.get_bind())
