"""Roles, the invitation lifecycle and the audit log.

- ``user.role`` (Owner, Admin, Member): every existing user becomes an Owner, so nobody loses
  what they could do before roles existed; the column has no default afterwards, so the code
  that adds a user always says which role.
- ``user.invited_at``, ``user.invitation_expires_at``, ``user.signed_in_at``: an invited user
  is Pending until the first sign-in, Expired after ``invitation_expires_at``. Existing users
  have no invitation (they count as active).
- ``audit_event``: partitioned by month on ``occurred_at``, append-only for the application's
  role (UPDATE, DELETE and TRUNCATE revoked from PUBLIC and from the role running this
  migration, which is the API's: one ``DATABASE_URL``), and a trigger that refuses them for any
  role, superusers included. Two functions own the partitions, so the migration and the
  retention job (``api/audit/retention.py``) share one rule:
  ``audit_event_ensure_partitions(months_ahead)`` creates the month partitions from the current
  month on (each with the same revokes and a TRUNCATE trigger of its own),
  ``audit_event_drop_partitions_before(cutoff)`` drops the month partitions that end at or
  before ``cutoff``. Dropping a partition is the owner's
  right, not a DELETE, so retention needs no DELETE privilege.
- ``api_key_reveal`` (the record of API keys revealed or copied) moves into the audit
  log as ``api_key.revealed`` / ``api_key.copied`` events (client address unknown: empty) and
  goes. Downgrade brings the table back empty.

Revision ID: a0fa304125e7
Revises: b3f8c1d2e4a6
Create Date: 2026-11-24 20:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = "a0fa304125e7"
down_revision: str | Sequence[str] | None = "b3f8c1d2e4a6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ROLES = ("Owner", "Admin", "Member")

_FUNCTIONS = (
    """
CREATE FUNCTION audit_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_event is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$
""",
    """
CREATE FUNCTION audit_event_ensure_partitions(months_ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    first_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
    month_start date;
    name text;
    created integer := 0;
BEGIN
    FOR i IN 0..months_ahead LOOP
        month_start := first_month + make_interval(months => i);
        name := 'audit_event_' || to_char(month_start, 'YYYY"m"MM');
        IF to_regclass(name) IS NULL THEN
            EXECUTE format(
                'CREATE TABLE %I PARTITION OF audit_event FOR VALUES FROM (%L) TO (%L)',
                name,
                (month_start::timestamp AT TIME ZONE 'UTC'),
                ((month_start + interval '1 month')::timestamp AT TIME ZONE 'UTC')
            );
            EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM PUBLIC, CURRENT_USER', name);
            -- Row triggers reach partitions from the parent; TRUNCATE's statement trigger
            -- does not, so each partition gets its own.
            EXECUTE format(
                'CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT '
                'EXECUTE FUNCTION audit_event_append_only()',
                name || '_no_truncate', name
            );
            created := created + 1;
        END IF;
    END LOOP;
    RETURN created;
END $$
""",
    """
CREATE FUNCTION audit_event_drop_partitions_before(cutoff timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    part record;
    dropped integer := 0;
BEGIN
    FOR part IN
        SELECT c.relname,
               (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]
                   AS upper_bound
        FROM pg_inherits AS i
        JOIN pg_class AS c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'audit_event'::regclass
    LOOP
        IF part.upper_bound IS NOT NULL AND part.upper_bound::timestamptz <= cutoff THEN
            EXECUTE format('DROP TABLE %I', part.relname);
            dropped := dropped + 1;
        END IF;
    END LOOP;
    RETURN dropped;
END $$
""",
)


def upgrade() -> None:
    """Add the role and invitation columns, then the audit log and its partitions."""
    role = postgresql.ENUM(*ROLES, name="user_role", create_type=False)
    role.create(op.get_bind())
    op.add_column("user", sa.Column("role", role, server_default="Owner", nullable=False))
    op.alter_column("user", "role", server_default=None)
    op.add_column("user", sa.Column("invited_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column(
        "user", sa.Column("invitation_expires_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column("user", sa.Column("signed_in_at", sa.DateTime(timezone=True), nullable=True))

    op.create_table(
        "audit_event",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column(
            "occurred_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("clock_timestamp()"),
            nullable=False,
        ),
        sa.Column("account_id", sa.Uuid(), nullable=False),
        sa.Column("actor_user_id", sa.Uuid(), nullable=True),
        sa.Column("actor_name", sa.String(length=201), nullable=False),
        sa.Column("actor_email", sa.String(length=320), nullable=False),
        sa.Column("client_address", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("target_type", sa.String(length=32), nullable=True),
        sa.Column("target_id", sa.String(length=64), nullable=True),
        sa.Column("target_label", sa.String(length=600), nullable=True),
        sa.Column("changes", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["account.id"], name=op.f("fk_audit_event_account_id_account")
        ),
        sa.PrimaryKeyConstraint("occurred_at", "id", name="pk_audit_event"),
        postgresql_partition_by="RANGE (occurred_at)",
    )
    op.create_index(
        "ix_audit_event_account_id_occurred_at",
        "audit_event",
        ["account_id", "occurred_at", "id"],
    )
    for function in _FUNCTIONS:
        op.execute(function)
    # Rows of a month without its partition (the job creates them months ahead) still land.
    op.execute("CREATE TABLE audit_event_default PARTITION OF audit_event DEFAULT")
    op.execute(
        "CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event "
        "FOR EACH ROW EXECUTE FUNCTION audit_event_append_only()"
    )
    for table in ("audit_event", "audit_event_default"):
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION audit_event_append_only()"
        )
        op.execute(f"REVOKE UPDATE, DELETE, TRUNCATE ON {table} FROM PUBLIC, CURRENT_USER")
    op.execute("SELECT audit_event_ensure_partitions(3)")
    op.execute(
        """
        INSERT INTO audit_event (id, occurred_at, account_id, actor_user_id, actor_name,
            actor_email, client_address, action, target_type, target_id, target_label)
        SELECT gen_random_uuid(), r.at, k.account_id, r.user_id,
            coalesce(trim(u.first_name || ' ' || u.last_name), ''), coalesce(u.email, ''), '',
            CASE r.purpose WHEN 'copy' THEN 'api_key.copied' ELSE 'api_key.revealed' END,
            'api_key', k.id::text, 'ak_…' || k.last4
        FROM api_key_reveal AS r
        JOIN api_key AS k ON k.id = r.key_id
        LEFT JOIN "user" AS u ON u.id = r.user_id
        """
    )
    op.drop_table("api_key_reveal")


def downgrade() -> None:
    """Bring ``api_key_reveal`` back (empty), drop the audit log (and its partitions and
    functions), then the user columns."""
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
    op.drop_table("audit_event")
    op.execute("DROP FUNCTION audit_event_drop_partitions_before(timestamptz)")
    op.execute("DROP FUNCTION audit_event_ensure_partitions(integer)")
    op.execute("DROP FUNCTION audit_event_append_only()")
    op.drop_column("user", "signed_in_at")
    op.drop_column("user", "invitation_expires_at")
    op.drop_column("user", "invited_at")
    op.drop_column("user", "role")
    postgresql.ENUM(name="user_role").drop(op.get_bind())
