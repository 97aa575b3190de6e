"""The Stripe webhook route (outside /web, not in the contract: Stripe calls it, signed with
the endpoint's secret; https://docs.stripe.com/webhooks)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request, status

from api.billing.errors import InvalidWebhookSignature
from api.billing.schemas import WebhookAck
from api.billing.webhooks import service
from api.kernel.errors import error_responses
from api.principal.dependencies import DbSession, Stripe

router = APIRouter(prefix="/webhooks", tags=["webhooks"], include_in_schema=False)


async def _raw_body(request: Request) -> bytes:
    return await request.body()


@router.post(
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
    """Stripe's events, signature-verified and recorded; a worker applies each once."""
    await service.receive_webhook(db=db, stripe=stripe, payload=payload, signature=stripe_signature)
    return WebhookAck()
