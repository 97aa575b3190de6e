"""API keys at rest (issue 14): the ``api_key`` table (SHA-256 and AES-256-GCM, never plain
text), use per billing cycle, reveals; each account's key moves there and ``account.api_key``
goes.

Sealing needs the key ring: ``API_KEY_ENCRYPTION_KEYS`` and ``API_KEY_ENCRYPTION_KEY_ID`` must
be set in the environment of the migration when there are keys to move (the API's own
settings; the migration stops with a clear message otherwise). Downgrade puts the keys back in
plain text (needs the ring too).

Revision ID: b3f8c1d2e4a6
Revises: a7d3e5f1c2b4
Create Date: 2026-11-23 18:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from api.auth.api_keys import hash_api_key
from api.config import Settings
from api.secretbox import KeyRing

# revision identifiers, used by Alembic.
revision: str = "b3f8c1d2e4a6"
down_revision: str | Sequence[str] | None = "a7d3e5f1c2b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ring() -> KeyRing:
    settings = Settings()
    return KeyRing.parse(
        settings.api_key_encryption_keys.get_secret_value(), settings.api_key_encryption_key_id
    )


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "api_key",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("key_hash", sa.LargeBinary(length=32), nullable=False),
        sa.Column("sealed", sa.LargeBinary(), nullable=False),
        sa.Column("encryption_key_id", sa.String(length=40), nullable=False),
        sa.Column("last4", sa.String(length=4), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.id"],
            name=op.f("fk_api_key_account_id_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_key")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_key_key_hash")),
    )
    op.create_index(op.f("ix_api_key_account_id"), "api_key", ["account_id"])
    op.create_table(
        "api_key_usage",
        sa.Column("key_id", sa.Uuid(), nullable=False),
        sa.Column("cycle_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("records", sa.BigInteger(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_key.id"],
            name=op.f("fk_api_key_usage_key_id_api_key"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("key_id", "cycle_start", name=op.f("pk_api_key_usage")),
    )
    op.create_table(
        "api_key_reveal",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("key_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=True),
        sa.Column("purpose", sa.String(length=10), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_key.id"],
            name=op.f("fk_api_key_reveal_key_id_api_key"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name=op.f("fk_api_key_reveal_user_id_user"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_key_reveal")),
    )
    op.create_index(op.f("ix_api_key_reveal_key_id"), "api_key_reveal", ["key_id"])

    connection = op.get_bind()
    accounts = connection.execute(sa.text("SELECT id, api_key FROM account")).all()
    if accounts:
        ring = _ring()
        for account_id, key in accounts:
            key_id, sealed = ring.seal(key, context=account_id.bytes)
            connection.execute(
                sa.text(
                    "INSERT INTO api_key (id, account_id, key_hash, sealed, encryption_key_id,"
                    " last4) VALUES (gen_random_uuid(), :account, :hash, :sealed, :key_id, :last4)"
                ),
                {
                    "account": account_id,
                    "hash": hash_api_key(key),
                    "sealed": sealed,
                    "key_id": key_id,
                    "last4": key[-4:],
                },
            )
    op.drop_constraint(op.f("uq_account_api_key"), "account", type_="unique")
    op.drop_column("account", "api_key")


def downgrade() -> None:
    """Downgrade schema: each account's newest key back in plain text."""
    op.add_column("account", sa.Column("api_key", sa.String(80), nullable=True))
    connection = op.get_bind()
    keys = connection.execute(
        sa.text(
            "SELECT DISTINCT ON (account_id) account_id, sealed, encryption_key_id FROM api_key"
            " ORDER BY account_id, created_at DESC"
        )
    ).all()
    if keys:
        ring = _ring()
        for account_id, sealed, key_id in keys:
            connection.execute(
                sa.text("UPDATE account SET api_key = :key WHERE id = :account"),
                {"key": ring.open(key_id, sealed, context=account_id.bytes), "account": account_id},
            )
    op.alter_column("account", "api_key", nullable=False)
    op.create_unique_constraint(op.f("uq_account_api_key"), "account", ["api_key"])
    op.drop_table("api_key_reveal")
    op.drop_table("api_key_usage")
    op.drop_index(op.f("ix_api_key_account_id"), table_name="api_key")
    op.drop_table("api_key")
