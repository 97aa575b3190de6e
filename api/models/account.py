"""The ``account`` table: an organization, its API key, plan, SSO and billing state (SPEC 3)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy import Boolean, CheckConstraint, DateTime, Integer, SmallInteger, String, func
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, TimestampMixin, new_id
from api.models.user import AuthType

_Units = TypeVar("_Units", int, str)

MAX_UNITS = 20  # SPEC 9: "Slider is 0 to 20 whole units"; the API and webhooks clamp to it


PAST_DUE_GRACE = timedelta(days=14)
"""How long a past-due plan's units still count from the account's first failed payment
(README "Billing", "Past due"): the window of Stripe's recommended Smart Retries, 8 tries within
2 weeks (https://docs.stripe.com/billing/revenue-recovery/smart-retries). Past it the account has
the free plan's allowance, as when Stripe ends an unpaid subscription, until the invoice is paid
or voided, whatever the Stripe account's settings do with the subscription meanwhile."""


def grace_ends(past_due_since: datetime | None) -> datetime | None:
    """When the units of a plan past due since ``past_due_since`` stop counting (that moment
    + :data:`PAST_DUE_GRACE`), None when its payments are in order."""
    return past_due_since + PAST_DUE_GRACE if past_due_since is not None else None


def units_in_force_of(units: _Units, *, lapsed: bool) -> _Units | int:
    """The rule of the units in force (README "Billing", "Past due"): the plan's ``units``, or
    none once its grace has ``lapsed``. Given SQL text for ``units`` it answers SQL text, so
    :func:`units_in_force_sql` is this rule written out for both answers, not a second one."""
    return 0 if lapsed else units


def units_in_force(units: int, past_due_since: datetime | None, now: datetime) -> int:
    """The units an account of ``units`` units, past due since ``past_due_since`` (None: its
    payments are in order), may use at ``now`` (aware): :func:`units_in_force_of`, the grace
    lapsed when ``now`` is past :func:`grace_ends`."""
    ends = grace_ends(past_due_since)
    return units_in_force_of(units, lapsed=ends is not None and now > ends)


def units_in_force_sql(account: str, now: str = "now()") -> str:
    """SQL of the units the ``account`` row (an alias or table name) may use at ``now`` (a
    timestamptz expression; by default the transaction's time), an integer: the CASE of
    :func:`units_in_force_of` over ``subscription_units``, the grace lapsed once ``now`` is past
    :func:`grace_ends_sql`. Both arguments are constant SQL text, never values."""
    units = f"{account}.subscription_units"
    return (
        f"CASE WHEN {grace_ends_sql(account)} < {now}"
        f" THEN {units_in_force_of(units, lapsed=True)}"
        f" ELSE {units_in_force_of(units, lapsed=False)} END"
    )


def grace_ends_sql(account: str) -> str:
    """SQL of :func:`grace_ends` for the ``account`` row (timestamptz, NULL when its payments
    are in order), with the same :data:`PAST_DUE_GRACE`."""
    return f"({account}.past_due_since + interval '{PAST_DUE_GRACE.days} days')"


def required_auth_type(*, require_google_sso: bool, require_saml_sso: bool) -> AuthType | None:
    """How the users of an account with these two settings must sign in (SPEC 4 "SSO setting":
    Google or its SAML connection), or None when any way works (email and password, Google or
    GitHub). The one definition: :attr:`Account.required_auth_type` and the sign-in policy,
    which reads the two columns with the caller (``api.principal.principal``), both ask it."""
    if require_google_sso:
        return AuthType.GOOGLE_SSO
    if require_saml_sso:
        return AuthType.SAML_SSO
    return None


def allowance_sql(account: str) -> str:
    """SQL of the plan allowance of the ``account`` row (an alias or table name; constant SQL
    text, never a value), requests per billing cycle as a bigint: the free plan's requests at
    0 units in force (:func:`units_in_force_sql`: a plan past due beyond its grace has none),
    else those units x requests per unit (SPEC 9). The usage alerts and the intake's stop at
    the allowance read it; the web's is web/src/lib/plan.ts (given ``unitsInForce``)."""
    units = units_in_force_sql(account)
    return (
        f"CASE WHEN {units} = 0 THEN {account}.free_plan_requests::bigint"
        f" ELSE ({units})::bigint * {account}.unit_plan_requests END"
    )


class Account(TimestampMixin, Base):
    """One customer organization. Every user belongs to exactly one account.

    ``require_google_sso``: its users sign in with Google only, and Google identities of its
    verified domains (``sso_domain``) may join it (SPEC 6 requireGoogleSSO, README "Verified
    domains"). ``require_saml_sso``: its users sign in through its SAML connection only
    (README "SAML single sign-on"). At most one of the two is set (:attr:`required_auth_type`).
    ``access_tokens_enabled``: its access tokens work (an Owner turns them off and on; the
    sign-in requirements do not apply to tokens, README "Automation").

    ``subscription_units`` is the Stripe subscription quantity (0 = free plan);
    ``unit_plan_requests`` / ``free_plan_requests`` are requests per billing cycle per unit and
    at zero units (SPEC 9). ``billing_cycle_anchor`` starts the monthly billing cycles. Card
    fields mirror the Stripe default card (kept in step by writes and webhooks) so reads never
    call Stripe.
    """

    __tablename__ = "account"
    __table_args__ = (
        CheckConstraint(
            f"subscription_units >= 0 AND subscription_units <= {MAX_UNITS}", name="units_range"
        ),
        CheckConstraint(
            f"scheduled_units IS NULL OR (scheduled_units >= 0 AND scheduled_units <= {MAX_UNITS})",
            name="scheduled_units_range",
        ),
        CheckConstraint("length(trim(name)) > 0", name="name_not_blank"),
        CheckConstraint(
            "NOT (require_google_sso AND require_saml_sso)", name="one_sso_requirement"
        ),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200))
    subscription_units: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    unit_plan_requests: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    free_plan_requests: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    require_google_sso: Mapped[bool] = mapped_column(Boolean, default=False, server_default="false")
    require_saml_sso: Mapped[bool] = mapped_column(Boolean, default=False, server_default="false")
    access_tokens_enabled: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default="true"
    )
    billing_cycle_anchor: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now()
    )
    stripe_customer_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    stripe_subscription_id: Mapped[str | None] = mapped_column(String(255))
    card_brand: Mapped[str | None] = mapped_column(String(40))
    card_last4: Mapped[str | None] = mapped_column(String(4))
    card_exp_month: Mapped[int | None] = mapped_column(Integer)
    card_exp_year: Mapped[int | None] = mapped_column(Integer)
    payment_failed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Stripe's time of the newest subscription / invoice event applied (or of our own write):
    # Stripe may deliver events out of order, and an older one must not undo a newer state.
    subscription_synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Plan changes Stripe accepted so far: with the units asked for, it names a change's
    # idempotency key, so a retry after a timeout replays the same Stripe request.
    subscription_change_seq: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", nullable=False
    )
    payment_synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # A change Stripe makes when the paid period ends (README "Billing"): the units then (0 = the
    # plan ends) and when. Until then ``subscription_units`` stays what was paid for.
    scheduled_units: Mapped[int | None] = mapped_column(Integer)
    scheduled_change_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The invoice whose payment failed (``invoice.payment_failed``), what it asks and in which
    # currency; cleared when it is paid.
    past_due_invoice_id: Mapped[str | None] = mapped_column(String(255))
    past_due_amount: Mapped[int | None] = mapped_column(Integer)
    past_due_currency: Mapped[str | None] = mapped_column(String(3))
    # The first failed payment since payments were last in order, kept while an invoice stays
    # unpaid (api/billing/invoices.py); PAST_DUE_GRACE counts from it.
    past_due_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Usage alerts (README "Usage alerts and export"): the percentages of the allowance that send
    # one (of 50, 80, 100).
    usage_alert_thresholds: Mapped[list[int]] = mapped_column(
        ARRAY(SmallInteger), default=lambda: [50, 80, 100], server_default="{50,80,100}"
    )
    # At 100 % of the allowance: keep running (False: alerts only) or stop, refusing metered
    # requests past it until the cycle ends (README "Metering intake").
    stop_at_allowance: Mapped[bool] = mapped_column(Boolean, default=False, server_default="false")

    # Since when its password users must use two-step sign-in (README "Two-step sign-in");
    # null: not required.
    two_step_required_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    def grace_ends_at(self) -> datetime | None:
        """:func:`grace_ends` of this account."""
        return grace_ends(self.past_due_since)

    def units_in_force(self, now: datetime) -> int:
        """:func:`units_in_force` of this account at ``now`` (aware)."""
        return units_in_force(self.subscription_units, self.past_due_since, now)

    @property
    def required_auth_type(self) -> AuthType | None:
        """:func:`required_auth_type` of this account's settings."""
        return required_auth_type(
            require_google_sso=self.require_google_sso, require_saml_sso=self.require_saml_sso
        )
