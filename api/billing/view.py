"""Billing's read model: ``subscription`` and ``billing`` (the card on file) as
``GET /web/account`` and the plan and card calls answer them (SPEC 3 "Subscription",
"Billing"; README "Billing"), their wire JSON built here and nowhere else.

Python mappers over the account row's columns (:data:`SUBSCRIPTION_COLUMNS`,
:data:`CARD_COLUMNS`), which the account view's statement selects with the rest and the
billing calls read from the row they just changed: plain column reads cost PostgreSQL next to
nothing, where building the JSON in SQL (times as text, the past-due object) cost it more than
Python spends on a dict; the rules (units in force, the grace) are ``api.models.account``'s,
written once."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from api.billing.schemas import UNKNOWN_CARD_BRAND, UNKNOWN_CURRENCY, UNKNOWN_EXPIRY
from api.models.account import grace_ends, units_in_force

SUBSCRIPTION_COLUMNS = (
    "subscription_units",
    "unit_plan_requests",
    "free_plan_requests",
    "scheduled_units",
    "scheduled_change_at",
    "payment_failed_at",
    "past_due_amount",
    "past_due_currency",
    "past_due_since",
)
"""The ``account`` columns :func:`subscription` reads, in its order."""

CARD_COLUMNS = ("card_brand", "card_last4", "card_exp_month", "card_exp_year")
"""The ``account`` columns :func:`card` reads, in its order."""

_INSTANT = timedelta(microseconds=1)
_PAST_DUE_SINCE = SUBSCRIPTION_COLUMNS.index("past_due_since")


def subscription(values: Sequence[Any], now: datetime) -> dict[str, Any]:
    """The ``Subscription`` JSON of an account whose :data:`SUBSCRIPTION_COLUMNS` are
    ``values``, at ``now`` (aware): the plan, the scheduled change, when a payment last failed,
    what is past due (only with an amount; in ``UNKNOWN_CURRENCY`` when the currency is
    unknown) and, while payments are past due, when the grace ends and the units in force."""
    (
        units,
        unit_plan_requests,
        free_plan_requests,
        scheduled_units,
        scheduled_change_at,
        payment_failed_at,
        past_due_amount,
        past_due_currency,
        past_due_since,
    ) = values
    return {
        "units": units,
        "unitsInForce": units_in_force(units, past_due_since, now),
        "unitPlanRequests": unit_plan_requests,
        "freePlanRequests": free_plan_requests,
        "scheduledUnits": scheduled_units,
        "scheduledChangeAt": scheduled_change_at,
        "paymentFailedAt": payment_failed_at,
        "pastDue": None
        if past_due_amount is None
        else {"amountDue": past_due_amount, "currency": past_due_currency or UNKNOWN_CURRENCY},
        "graceEndsAt": grace_ends(past_due_since),
    }


def subscription_turns_at(values: Sequence[Any]) -> datetime | None:
    """The instant from which :func:`subscription` of the same ``values`` answers otherwise
    by the clock alone (the units in force are 0 from just past the grace's end on), None when
    the clock changes nothing."""
    ends = grace_ends(values[_PAST_DUE_SINCE])
    return None if ends is None else ends + _INSTANT


def card(values: Sequence[Any]) -> dict[str, Any] | None:
    """The ``Billing`` JSON (the card on file) of an account whose :data:`CARD_COLUMNS` are
    ``values``, None without a card (no last four); brand and expiry as ``UNKNOWN_CARD_BRAND``
    and ``UNKNOWN_EXPIRY`` when Stripe did not say."""
    brand, last4, exp_month, exp_year = values
    if last4 is None:
        return None
    return {
        "brand": brand or UNKNOWN_CARD_BRAND,
        "last4": last4,
        "expMonth": exp_month or UNKNOWN_EXPIRY,
        "expYear": exp_year or UNKNOWN_EXPIRY,
    }
