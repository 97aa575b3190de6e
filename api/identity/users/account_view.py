"""User Management's part of ``GET /web/account`` in SQL, for the statement that builds the
whole body (api/account/repository.py): the account's users as ``account_users`` lists them
(api/identity/users/service.py)."""

from __future__ import annotations

from api.identity.users.status import user_status_sql
from api.kernel.schemas import json_time_sql
from api.principal.two_step import two_step_on_sql


def account_users_sql(account_id: str, now: str) -> str:
    """SQL for the JSON array of the users of the account ``account_id`` (an SQL expression),
    each as ``AccountUser``, by last name, first name, email (``repository.list_users``); their
    status at the timestamptz SQL expression ``now`` (``api.identity.users.status``); the
    invitation's end only until the user signs in (``account_user``). NULL when the account has no
    user.
    Arguments are constant SQL text, never values."""
    return f"""(
        SELECT json_agg(json_build_object(
            'id', m.id,
            'firstName', m.first_name,
            'lastName', m.last_name,
            'email', m.email,
            'authType', m.auth_type,
            'role', m.role,
            'status', {user_status_sql("m", now)},
            'twoStepSignIn', {two_step_on_sql("m")},
            'invitedAt', {json_time_sql("m.invited_at")},
            'invitationExpiresAt',
                CASE WHEN m.signed_in_at IS NULL THEN {json_time_sql("m.invitation_expires_at")} END
        ) ORDER BY m.last_name, m.first_name, m.email)
        FROM "user" AS m
        WHERE m.account_id = {account_id}
    )"""  # noqa: S608 - constant SQL text only
