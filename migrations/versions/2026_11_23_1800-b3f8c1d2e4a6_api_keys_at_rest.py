"""API keys at rest: the ``api_key`` table (SHA-256 and AES-256-GCM, never plain
text), use per billing cycle, reveals; each account's key moves there and ``account.api_key``
goes.

Sealing needs the key ring: ``API_KEY_ENCRYPTION_KEYS`` and ``API_KEY_ENCRYPTION_KEY_ID`` must
be set in the environment of the migration when there are keys to move (the API's own
settings; the migration stops with a clear message otherwise). Downgrade puts the keys back in
plain text (needs the ring too).

The hash, the settings and the sealing are written out here as they were when this revision
was made (SHA-256; AES-256-GCM, a 12-byte random nonce before ciphertext and tag, the account
id as associated data), so the migration does not change when the API's code does.

Revision ID: b3f8c1d2e4a6
Revises: a7d3e5f1c2b4
Create Date: 2026-11-23 18:00:00+00:00

"""

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

# revision identifiers, used by Alembic.
revision: str = "b3f8c1d2e4a6"
down_revision: str | Sequence[str] | None = "a7d3e5f1c2b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


NONCE_BYTES = 12


class KeyRingError(ValueError):
    """The key ring settings are missing or malformed, or a sealed key does not open."""


def _setting(name: str) -> str:
    # As the API's settings read it: the environment, names matched case-insensitively.
    values = {key.lower(): value for key, value in os.environ.items()}
    return values.get(name.lower(), "")


def hash_api_key(key: str) -> bytes:
    """The key's SHA-256 (32 bytes), what is stored and looked up."""
    return hashlib.sha256(key.encode()).digest()


class _Ring:
    """Named AES-256-GCM keys and the current one, from the settings' JSON and id."""

    def __init__(self, keys_json: str, current: str) -> None:
        try:
            raw = json.loads(keys_json or "{}")
            if not isinstance(raw, dict):
                raise TypeError(type(raw).__name__)
            keys = {str(k): base64.b64decode(v, validate=True) for k, v in raw.items()}
        except (ValueError, TypeError, binascii.Error) as exc:
            raise KeyRingError(
                "API_KEY_ENCRYPTION_KEYS must be a JSON object of key ids to base64 keys"
            ) from exc
        if not keys or current not in keys:
            raise KeyRingError("API_KEY_ENCRYPTION_KEY_ID must name one of API_KEY_ENCRYPTION_KEYS")
        for key_id, key in keys.items():
            if len(key) != 32:
                raise KeyRingError(f"API_KEY_ENCRYPTION_KEYS[{key_id!r}] is not 32 bytes")
        self._keys = {key_id: AESGCM(key) for key_id, key in keys.items()}
        self.current = current

    def seal(self, plaintext: str, *, context: bytes) -> tuple[str, bytes]:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._keys[self.current].encrypt(nonce, plaintext.encode(), context)
        return self.current, nonce + sealed

    def open(self, key_id: str, sealed: bytes, *, context: bytes) -> str:
        aead = self._keys.get(key_id)
        if aead is None:
            raise KeyRingError(f"no key {key_id!r} in API_KEY_ENCRYPTION_KEYS")
        try:
            return aead.decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], context).decode()
        except InvalidTag as exc:
            raise KeyRingError("the ciphertext does not open with its key and context") from exc


def _ring() -> _Ring:
    return _Ring(_setting("API_KEY_ENCRYPTION_KEYS"), _setting("API_KEY_ENCRYPTION_KEY_ID"))


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
