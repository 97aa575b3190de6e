"""The Account Information read model (SPEC 2 "Account Information", 3 "Account"): the body of
``GET /web/account`` and ``PUT /web/account``, ``AccountResponse`` as JSON, composed of each
domain's read model and built nowhere else.

One statement reads everything (:data:`VIEW_COLUMNS`, selected by ``api.account.repository``
with the caller's sign-in policy or by account id); one Python mapper (:func:`account_body`)
hands each domain's columns to that domain's mapper (``api.<domain>.view``) and writes the
whole with orjson. Why Python maps rather than PostgreSQL building the JSON, as it did: that
statement spent about 0.45 ms of PostgreSQL's CPU per call on ``json_build_object``, times
written as text, 12 cycles computed in SQL and the users' status CASE, and PostgreSQL is the
shared, harder-to-scale half; reading plain columns and arrays of records costs it a fraction
of that, and the worker maps them in a few tens of microseconds (the cycle starts are cached
per anchor). The figures are in docs/contributors/performance.md."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from api.billing import view as billing
from api.identity.mfa import view as mfa
from api.identity.sso import view as sso
from api.identity.users import view as users
from api.kernel.views import select_list, wire_json
from api.keys import view as keys
from api.usage import view as usage

SINCE = "CAST($2 AS timestamptz)"
"""The statement's second parameter: the oldest cycle start read (``usage.OLDEST_SHOWN``
before now)."""

VIEW_COLUMNS = f"""a.id, a.name, a.billing_cycle_anchor,
    {keys.current_last4_sql("a.id")},
    {usage.usage_rows_sql("a.id", SINCE)},
    {select_list("a", billing.SUBSCRIPTION_COLUMNS)},
    {select_list("a", billing.CARD_COLUMNS)},
    {users.account_users_sql("a.id")},
    a.require_google_sso, a.require_saml_sso, {sso.verified_domains_sql("a.id")},
    a.two_step_required_at"""
"""The select list of the view, for a statement where ``a`` is the ``account`` row; the
usage read since ``$2`` (:data:`SINCE`). :func:`account_body` maps it, in this order."""

_SUBSCRIPTION = slice(5, 5 + len(billing.SUBSCRIPTION_COLUMNS))
_CARD = slice(_SUBSCRIPTION.stop, _SUBSCRIPTION.stop + len(billing.CARD_COLUMNS))
_REST = _CARD.stop


def since(now: datetime) -> datetime:
    """The statement's ``$2`` for a view at ``now``."""
    return now - usage.OLDEST_SHOWN


def account_body(row: Sequence[Any], now: datetime) -> bytes:
    """``AccountResponse`` as UTF-8 JSON from the values of :data:`VIEW_COLUMNS` (``row``),
    at ``now`` (aware): usage up to the cycle containing it, the plan's units in force and
    each user's status then.

    The same values give the same body until the clock alone changes it (a new cycle, a
    grace ending, an invitation expiring: each domain's view says when), so the last body of
    each account is kept with the values it came from and the span it holds for, and given
    again while both still match: comparing the values costs a few microseconds, mapping them
    a few tens."""
    account_id = row[0]
    kept = _BODIES.get(account_id)
    if kept is not None and kept[1] <= now < kept[2] and kept[0] == row:
        return kept[3]
    body, since, until = _mapped(row, now)
    if len(_BODIES) >= _BODIES_KEPT:
        _BODIES.clear()
    _BODIES[account_id] = (row, since, until, body)
    return body


# Per account: (the values, from when and until when their body holds, the body).
_BODIES: dict[Any, tuple[Sequence[Any], datetime, datetime, bytes]] = {}
_BODIES_KEPT = 4096


def _mapped(row: Sequence[Any], now: datetime) -> tuple[bytes, datetime, datetime]:
    """The body of ``row`` at ``now``, and the span around ``now`` it holds for."""
    account_id, name, anchor, last4, usage_rows = row[:5]
    user_rows, require_google, require_saml, domains, two_step_required_at = row[_REST:]
    user_rows = user_rows or ()
    body = wire_json(
        {
            "account": {
                "id": str(account_id),
                "name": name,
                "apiKey": keys.masked_key(last4),
                "usage": usage.usage_entries(usage_rows, anchor, now),
                "subscription": billing.subscription(row[_SUBSCRIPTION], now),
                "billing": billing.card(row[_CARD]),
                "users": [users.account_user(user, now) for user in user_rows],
                "sso": sso.sso(require_google, require_saml, domains),
                "requireTwoStepSignIn": mfa.requires_two_step(two_step_required_at),
            }
        }
    )
    since, until = usage.cycles_window(anchor, now)
    turns = [billing.subscription_turns_at(row[_SUBSCRIPTION])]
    turns.extend(users.account_user_turns_at(user) for user in user_rows)
    for at in turns:
        if at is None:
            continue
        if at <= now:
            since = max(since, at)
        else:
            until = min(until, at)
    return body, since, until
