"""Billing routes: the plan and the card on file (SPEC 7). Stripe's webhook is in
``webhooks/router.py``."""

from typing import Annotated

from fastapi import APIRouter, Query, status

from api.billing import service
from api.billing.errors import (
    CardDeclined,
    PaidPlanNeedsPaymentMethod,
    PaymentMethodRequired,
    PaymentProviderRefused,
    PreviewExpired,
)
from api.billing.schemas import (
    InvoicesResponse,
    PaymentMethodResponse,
    PaymentMethodUpdate,
    SubscriptionPreview,
    SubscriptionResponse,
    SubscriptionUpdate,
)
from api.billing.throttles import INVOICES, PAYMENT_METHOD
from api.kernel.errors import (
    NotFound,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.models import MAX_UNITS
from api.principal.dependencies import (
    AccountThrottle,
    Audit,
    CurrentUser,
    DbSession,
    Permit,
    SettingsDep,
    Stripe,
)
from api.principal.errors import AccountRequired, Forbidden, NotAuthenticated, SignInPolicyRefusal
from api.principal.roles import Permission

router = APIRouter(prefix="/web", tags=["billing"])


@router.post(
    "/subscription",
    response_model=SubscriptionResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[Permit(Permission.BILLING_WRITE)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        PaymentMethodRequired,
        PreviewExpired,
        CardDeclined,
        PaymentProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
    openapi_extra={
        "requestBody": {
            "content": {
                "application/json": {
                    "examples": {
                        "upgrade": {
                            "summary": "Upgrade to 5 units at the previewed price",
                            "value": {"units": 5, "prorationDate": 1795256100},
                        },
                        "downgrade": {
                            "summary": "Down to the free plan when the period ends",
                            "value": {"units": 0},
                        },
                    }
                }
            }
        }
    },
)
async def update_subscription(
    body: SubscriptionUpdate,
    caller: CurrentUser,
    db: DbSession,
    stripe: Stripe,
    settings: SettingsDep,
    audit: Audit,
) -> SubscriptionResponse:
    """Set the plan's units (0 = free plan); needs a card on file. More units take effect now
    and the prorated difference is charged now; fewer take effect when the paid period ends;
    the current units undo a scheduled change (README "Billing")."""
    return SubscriptionResponse(
        subscription=await service.update_subscription(
            db=db,
            stripe=stripe,
            caller=caller,
            audit=audit,
            units=body.units,
            plan_id=settings.stripe.plan_id,
            proration_date=body.proration_date,
        )
    )


@router.get(
    "/subscription/preview",
    response_model=SubscriptionPreview,
    dependencies=[Permit(Permission.BILLING_WRITE)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        PaymentMethodRequired,
        PaymentProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def preview_subscription(
    units: Annotated[int, Query(ge=0, le=MAX_UNITS, description="Units asked for (0-20).")],
    caller: CurrentUser,
    db: DbSession,
    stripe: Stripe,
    settings: SettingsDep,
) -> SubscriptionPreview:
    """What setting the plan to ``units`` would charge now and later (README "Billing"); changes
    nothing. Needs a card on file, as the change does."""
    return await service.preview_subscription(
        db=db, stripe=stripe, caller=caller, units=units, plan_id=settings.stripe.plan_id
    )


@router.post(
    "/subscription/pay",
    response_model=SubscriptionResponse,
    dependencies=[Permit(Permission.BILLING_WRITE)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        NotFound,
        PaymentMethodRequired,
        CardDeclined,
        PaymentProviderRefused,
        VendorUnavailable,
    ),
)
async def pay_past_due(
    caller: CurrentUser, db: DbSession, stripe: Stripe, audit: Audit
) -> SubscriptionResponse:
    """Pay the invoice that is past due with the card on file (README "Billing")."""
    return SubscriptionResponse(
        subscription=await service.pay_past_due(db=db, stripe=stripe, caller=caller, audit=audit)
    )


@router.get(
    "/invoices",
    response_model=InvoicesResponse,
    dependencies=[Permit(Permission.BILLING_READ), AccountThrottle(INVOICES)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        RateLimited,
        NotFound,
        RequestValidationFailed,
    ),
)
async def list_invoices(
    caller: CurrentUser,
    db: DbSession,
    starting_after: Annotated[
        str | None,
        Query(
            alias="startingAfter",
            min_length=1,
            max_length=255,
            description="The id of the last invoice of the previous page.",
        ),
    ] = None,
) -> InvoicesResponse:
    """The account's invoices, 12 at a time, newest first, as Stripe last told us (README
    "Billing"); an open invoice whose payment failed is ``past_due``."""
    return await service.list_invoices(db=db, caller=caller, starting_after=starting_after)


@router.post(
    "/subscription/payment",
    response_model=PaymentMethodResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[Permit(Permission.BILLING_WRITE), AccountThrottle(PAYMENT_METHOD)],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        RateLimited,
        CardDeclined,
        PaymentProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def update_payment_method(
    body: PaymentMethodUpdate, caller: CurrentUser, db: DbSession, stripe: Stripe, audit: Audit
) -> PaymentMethodResponse:
    """Make the card of a Stripe.js token the account's card, replacing any previous one."""
    return PaymentMethodResponse(
        billing=await service.update_payment_method(
            db=db, stripe=stripe, caller=caller, audit=audit, card_token=body.card_token
        )
    )


@router.delete(
    "/subscription/payment",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[Permit(Permission.BILLING_WRITE)],
    responses=error_responses(
        PaidPlanNeedsPaymentMethod,
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        Forbidden,
        NotFound,
        PaymentProviderRefused,
        VendorUnavailable,
    ),
)
async def remove_payment_method(
    caller: CurrentUser, db: DbSession, stripe: Stripe, audit: Audit
) -> None:
    """Remove the account's card (Owners)."""
    await service.remove_payment_method(db=db, stripe=stripe, caller=caller, audit=audit)
