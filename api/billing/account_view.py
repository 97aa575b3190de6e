"""Billing's part of ``GET /web/account`` in SQL, for the statement that builds the whole body
(api/account/repository.py): ``subscription`` and ``billing``, as ``subscription_of`` and
``payment_method_of`` (api/billing/service.py) show them from the account's row, with the same
stand-ins for what Stripe did not say (``api.billing.schemas``)."""

from __future__ import annotations

from api.billing.schemas import UNKNOWN_CARD_BRAND, UNKNOWN_CURRENCY, UNKNOWN_EXPIRY
from api.kernel.schemas import json_time_sql, sql_literal
from api.models.account import grace_ends_sql, units_in_force_sql


def subscription_sql(account: str, now: str) -> str:
    """SQL for the JSON ``Subscription`` of the ``account`` row (an alias) at ``now`` (a
    timestamptz expression): the plan, the scheduled change, when a payment last failed, and
    what is past due (only with an amount; in ``UNKNOWN_CURRENCY`` when the currency is
    unknown), with the grace of a past-due plan (``api.models.account``). Times as
    ``ApiModel`` writes them."""
    return f"""json_build_object(
        'units', {account}.subscription_units,
        'unitsInForce', {units_in_force_sql(account, now)},
        'unitPlanRequests', {account}.unit_plan_requests,
        'freePlanRequests', {account}.free_plan_requests,
        'scheduledUnits', {account}.scheduled_units,
        'scheduledChangeAt', {json_time_sql(f"{account}.scheduled_change_at")},
        'paymentFailedAt', {json_time_sql(f"{account}.payment_failed_at")},
        'pastDue', CASE WHEN {account}.past_due_amount IS NOT NULL THEN json_build_object(
            'amountDue', {account}.past_due_amount,
            'currency', coalesce({account}.past_due_currency, {sql_literal(UNKNOWN_CURRENCY)})
        ) END,
        'graceEndsAt', {json_time_sql(grace_ends_sql(account))}
    )"""


def payment_method_sql(account: str) -> str:
    """SQL for the JSON ``Billing`` (the card on file) of the ``account`` row (an alias), NULL
    without a card (no ``card_last4``); brand and expiry as ``UNKNOWN_CARD_BRAND`` and
    ``UNKNOWN_EXPIRY`` when Stripe did not say."""
    return f"""CASE WHEN {account}.card_last4 IS NOT NULL THEN json_build_object(
        'brand', coalesce({account}.card_brand, {sql_literal(UNKNOWN_CARD_BRAND)}),
        'last4', {account}.card_last4,
        'expMonth', coalesce({account}.card_exp_month, {UNKNOWN_EXPIRY:d}),
        'expYear', coalesce({account}.card_exp_year, {UNKNOWN_EXPIRY:d})
    ) END"""
