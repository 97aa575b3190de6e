"""Typed errors of billing: the plan, the card on file and the Stripe webhook. Class names
are wire codes (api/kernel/errors.py); Stripe's texts are shown as they come (SPEC 8)."""

from api.kernel.errors import AppError


class PaidPlanNeedsPaymentMethod(AppError):
    """409: the card of an account on a paid plan cannot be removed: the plan renews every
    month and would have nothing to charge (README "Billing"). A new card replaces it on
    /payment."""

    status_code = 409
    default_message = "Set your plan to 0 units or add another card before removing this one."


class PreviewExpired(AppError):
    """409: the charge preview a plan change confirms is too old, or not one we gave (README
    "Billing": the preview and the change use the same proration date, so the charge is the
    one shown)."""

    status_code = 409
    default_message = (
        "The price shown is more than 10 minutes old. Review the new price and confirm again."
    )


class PaymentMethodRequired(AppError):
    """409: the plan can change only when a card is on file (SPEC 5 "Slider")."""

    status_code = 409
    default_message = "Add a payment method before changing your plan."


class CardDeclined(AppError):
    """402: Stripe declined or refused the card; ``message`` is Stripe's text (SPEC 8)."""

    status_code = 402
    default_message = "Your card was declined."


class PaymentProviderRefused(AppError):
    """400: Stripe refused the request for another reason; ``message`` is Stripe's text."""

    default_message = "The payment provider refused the request."


class InvalidWebhookSignature(AppError):
    """400: a webhook without a valid ``Stripe-Signature``; nothing was processed."""

    default_message = "Invalid webhook signature"
