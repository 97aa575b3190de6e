"""User Management's read model: a user as the console lists them (``AccountUser``: SPEC 2
"User Management", README "Roles and invitations"), in ``users`` of ``GET /web/account`` and in
the answers of the user calls, its wire JSON built here and nowhere else.

One Python mapper (:func:`account_user`) over a user's :data:`USER_COLUMNS`, read by the
account view's statement (:func:`account_users_sql`, all of an account's users in one array)
or from a loaded row. The status and the two-step state are rules of their own, in Python once
(``api.identity.users.status``, ``api.principal.two_step``): PostgreSQL reads columns, and
evaluating the status's CASE and writing times as text per user cost it more than the mapper
costs Python."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from api.identity.users.status import status_at
from api.principal.two_step import two_step_on

USER_COLUMNS = (
    "id",
    "first_name",
    "last_name",
    "email",
    "auth_type",
    "role",
    "invited_at",
    "signed_in_at",
    "invitation_expires_at",
    "two_step_enabled_at",
)
"""The ``"user"`` columns :func:`account_user` reads, in its order."""

_INVITATION = slice(USER_COLUMNS.index("invited_at"), USER_COLUMNS.index("two_step_enabled_at"))

# Enum columns go out as text: asyncpg decodes an enum inside a record only once it has
# introspected the type, a round trip more per connection.
_AS_SELECTED = {"auth_type": "m.auth_type::text", "role": "m.role::text"}


def account_users_sql(account_id: str) -> str:
    """SQL for the :data:`USER_COLUMNS` of every user of the account ``account_id`` (a
    constant SQL expression, never a value) as one array of records, by last name, first name,
    email (the order User Management lists them in); NULL when the account has none."""
    columns = ", ".join(_AS_SELECTED.get(column, f"m.{column}") for column in USER_COLUMNS)
    return f"""(
        SELECT array_agg(ROW({columns}) ORDER BY m.last_name, m.first_name, m.email)
        FROM "user" AS m WHERE m.account_id = {account_id}
    )"""  # noqa: S608 - constant SQL text only


def account_user(values: Sequence[Any], now: datetime) -> dict[str, Any]:
    """The ``AccountUser`` JSON of a user whose :data:`USER_COLUMNS` are ``values``, their
    status at ``now`` (aware); the invitation's end only until they sign in."""
    (
        user_id,
        first_name,
        last_name,
        email,
        auth_type,
        role,
        invited_at,
        signed_in_at,
        invitation_expires_at,
        two_step_enabled_at,
    ) = values
    return {
        "id": str(user_id),
        "firstName": first_name,
        "lastName": last_name,
        "email": email,
        "authType": str(auth_type),
        "role": str(role),
        "status": status_at(invited_at, signed_in_at, invitation_expires_at, now).value,
        "twoStepSignIn": two_step_on(auth_type, two_step_enabled_at),
        "invitedAt": invited_at,
        "invitationExpiresAt": invitation_expires_at if signed_in_at is None else None,
    }


def account_user_turns_at(values: Sequence[Any]) -> datetime | None:
    """The instant from which :func:`account_user` of the same ``values`` answers otherwise by
    the clock alone (an invitation not yet taken up is Expired from its end on), None when the
    clock changes nothing."""
    invited_at, signed_in_at, expires_at = values[_INVITATION]
    if invited_at is None or signed_in_at is not None:
        return None
    return expires_at  # type: ignore[no-any-return]
