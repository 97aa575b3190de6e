"""Who a SAML connection speaks for (README "Security model", "Who someone is"): connecting an
identity provider became an Owner's, and a first sign-in links an existing user only through a
connection an Owner made or confirmed.

- ``saml_connection.created_by_user_id``: who connected it.
- ``saml_connection.linking_confirmed_at`` / ``linking_confirmed_by_user_id``: when and by
  which Owner it was allowed to link existing users.

Existing connections: the creator is the actor of the account's latest ``sso.saml_connected``
audit event (the current connection's: removing one and connecting again makes a new one),
when that user is still in the account; otherwise unknown. A connection is confirmed (now, by
its creator) only when its creator is an Owner today and nobody but an Owner of today replaced
its metadata since (``sso.saml_updated``): whoever swapped the identity provider decides who
it asserts. Every other one (an Admin's, or one whose audit entry retention dropped) signs in
only people new to the account until an Owner confirms it, and its account stops requiring
SAML: a requirement of an identity provider no Owner vouched for would keep the Owners out
(their password sign-in refused, their first SAML sign-in not linked). An Owner requires it
again in one step (requiring confirms it). The downgrade does not require it again.

Revision ID: a1ccd969c8f4
Revises: e4b7c2a9d5f1
Create Date: 2026-11-27 14:00:00+00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "a1ccd969c8f4"
down_revision: str | Sequence[str] | None = "e4b7c2a9d5f1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("saml_connection", sa.Column("created_by_user_id", sa.Uuid(), nullable=True))
    op.add_column(
        "saml_connection",
        sa.Column("linking_confirmed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.add_column(
        "saml_connection", sa.Column("linking_confirmed_by_user_id", sa.Uuid(), nullable=True)
    )
    for column in ("created_by_user_id", "linking_confirmed_by_user_id"):
        op.create_foreign_key(
            f"fk_saml_connection_{column}_user",
            "saml_connection",
            "user",
            [column],
            ["id"],
            ondelete="SET NULL",
        )
    op.execute(
        """
        WITH connected AS (
            SELECT DISTINCT ON (account_id) account_id, actor_user_id, occurred_at
            FROM audit_event
            WHERE action = 'sso.saml_connected'
            ORDER BY account_id, occurred_at DESC
        )
        UPDATE saml_connection AS c
        SET created_by_user_id = u.id
        FROM connected AS e
        JOIN "user" AS u ON u.id = e.actor_user_id
        WHERE e.account_id = c.account_id AND u.account_id = c.account_id
        """
    )
    op.execute(
        """
        WITH connected AS (
            SELECT DISTINCT ON (account_id) account_id, occurred_at
            FROM audit_event
            WHERE action = 'sso.saml_connected'
            ORDER BY account_id, occurred_at DESC
        )
        UPDATE saml_connection AS c
        SET linking_confirmed_at = now(), linking_confirmed_by_user_id = c.created_by_user_id
        FROM connected AS e, "user" AS creator
        WHERE e.account_id = c.account_id
          AND creator.id = c.created_by_user_id
          AND creator.account_id = c.account_id
          AND creator.role = 'Owner'
          AND NOT EXISTS (
              SELECT 1 FROM audit_event AS r
              LEFT JOIN "user" AS replacer
                ON replacer.id = r.actor_user_id AND replacer.account_id = c.account_id
              WHERE r.account_id = c.account_id
                AND r.action = 'sso.saml_updated'
                AND r.occurred_at > e.occurred_at
                AND replacer.role IS DISTINCT FROM 'Owner'
          )
        """
    )

    op.execute(
        """
        UPDATE account SET require_saml_sso = false
        WHERE require_saml_sso
          AND id IN (SELECT account_id FROM saml_connection WHERE linking_confirmed_at IS NULL)
        """
    )


def downgrade() -> None:
    for column in ("linking_confirmed_by_user_id", "created_by_user_id"):
        op.drop_constraint(
            f"fk_saml_connection_{column}_user", "saml_connection", type_="foreignkey"
        )
    op.drop_column("saml_connection", "linking_confirmed_by_user_id")
    op.drop_column("saml_connection", "linking_confirmed_at")
    op.drop_column("saml_connection", "created_by_user_id")
