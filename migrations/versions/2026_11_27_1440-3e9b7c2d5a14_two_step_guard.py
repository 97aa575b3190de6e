"""Two-step sign-in's guard on the code step (README "Two-step sign-in").

- ``two_step_lock``: wrong authenticator-app codes of a user since their last right one, and
  until when their code step is locked (only a right code deletes the row).
- ``two_step_used_code``: codes accepted lately, refused again until no clock could still
  show them.
- ``two_step_challenge``: the user whose password opened each SOFTWARE_TOKEN_MFA challenge
  (by the SHA-256 of Cognito's session), so the code step does not take the user from the
  request's spelling.

Revision ID: 3e9b7c2d5a14
Revises: 3e9b7c1d5a24
Create Date: 2026-11-27 14:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "3e9b7c2d5a14"
down_revision: str | Sequence[str] | None = "3e9b7c1d5a24"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "two_step_lock",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user.id"], name="fk_two_step_lock_user_id_user", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_two_step_lock"),
    )
    op.create_table(
        "two_step_used_code",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("usable_until", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name="fk_two_step_used_code_user_id_user",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "code", name="pk_two_step_used_code"),
    )
    op.create_table(
        "two_step_challenge",
        sa.Column("session_digest", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name="fk_two_step_challenge_user_id_user",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_digest", name="pk_two_step_challenge"),
    )
    op.create_index("ix_two_step_challenge_user_id", "two_step_challenge", ["user_id"])
    op.create_index("ix_two_step_challenge_expires_at", "two_step_challenge", ["expires_at"])


def downgrade() -> None:
    op.drop_table("two_step_challenge")
    op.drop_table("two_step_used_code")
    op.drop_table("two_step_lock")
