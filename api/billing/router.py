"""Billing routes: the plan and the card on file (SPEC 7), and Stripe's webhook (outside /web,
not in the contract)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request, status

from api.auth.errors import AccountRequired, Forbidden, NotAuthenticated, SignInPolicyRefusal
from api.billing import service, webhooks
from api.billing.schemas import (
    InvoicesResponse,
    PaymentMethodResponse,
    PaymentMethodUpdate,
    SubscriptionPreview,
    SubscriptionResponse,
    SubscriptionUpdate,
    WebhookAck,
)
from api.deps import (
    Audit,
    CurrentUser,
    DbSession,
    InvoicesThrottle,
    OwnerOnly,
    PaymentMethodThrottle,
    SettingsDep,
    Stripe,
)
from api.errors import (
    CardDeclined,
    InvalidWebhookSignature,
    NotFound,
    PaidPlanNeedsPaymentMethod,
    PaymentMethodRequired,
    PaymentProviderRefused,
    PreviewExpired,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.models import MAX_UNITS

router = APIRouter(prefix="/web", tags=["billing"])
webhook_router = APIRouter(prefix="/webhooks", tags=["webhooks"], include_in_schema=False)


@router.post(
    "/subscription",
    response_model=SubscriptionResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[OwnerOnly],
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
    the current units undo a scheduled change (issue 11)."""
    return SubscriptionResponse(
        subscription=await service.update_subscription(
            db, stripe, caller, audit, body.units, settings.stripe_plan_id, body.proration_date
        )
    )


@router.get(
    "/subscription/preview",
    response_model=SubscriptionPreview,
    dependencies=[OwnerOnly],
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
    """What setting the plan to ``units`` would charge now and later (issue 11); changes
    nothing. Needs a card on file, as the change does."""
    return await service.preview_subscription(db, stripe, caller, units, settings.stripe_plan_id)


@router.post(
    "/subscription/pay",
    response_model=SubscriptionResponse,
    dependencies=[OwnerOnly],
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
    """Pay the invoice that is past due with the card on file (issue 11 "Past due")."""
    return SubscriptionResponse(subscription=await service.pay_past_due(db, stripe, caller, audit))


@router.get(
    "/invoices",
    response_model=InvoicesResponse,
    dependencies=[InvoicesThrottle],
    responses=error_responses(
        NotAuthenticated,
        AccountRequired,
        SignInPolicyRefusal,
        RateLimited,
        PaymentProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def list_invoices(
    caller: CurrentUser,
    db: DbSession,
    stripe: Stripe,
    starting_after: Annotated[
        str | None,
        Query(alias="startingAfter", min_length=1, max_length=255),
    ] = None,
) -> InvoicesResponse:
    """The account's invoices, 12 at a time, newest first (issue 11 "Invoices")."""
    return await service.invoices(db, stripe, caller, starting_after)


@router.post(
    "/subscription/payment",
    response_model=PaymentMethodResponse,
    status_code=status.HTTP_200_OK,
    dependencies=[OwnerOnly, PaymentMethodThrottle],
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
        billing=await service.update_payment_method(db, stripe, caller, audit, body.card_token)
    )


@router.delete(
    "/subscription/payment",
    status_code=status.HTTP_204_NO_CONTENT,
    dependencies=[OwnerOnly],
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
    await service.remove_payment_method(db, stripe, caller, audit)


async def _raw_body(request: Request) -> bytes:
    return await request.body()


@webhook_router.post(
    "/stripe",
    response_model=WebhookAck,
    status_code=status.HTTP_202_ACCEPTED,
    responses=error_responses(InvalidWebhookSignature),
)
async def stripe_webhook(
    payload: Annotated[bytes, Depends(_raw_body)],
    db: DbSession,
    stripe: Stripe,
    stripe_signature: Annotated[str | None, Header()] = None,
) -> WebhookAck:
    """Stripe's events, signature-verified and applied once each."""
    await webhooks.process_webhook(db, stripe, payload, stripe_signature)
    return WebhookAck()
