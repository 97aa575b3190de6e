"""Development-only stand-in for the clock: make now what would otherwise take days.

- ``POST /dev/billing/end-period?email=``: the current billing period ends now (Stripe's
  ``renew`` test helper, devstack/stripe_shim.py);
- ``POST /dev/invitations/expire?email=``: a pending invitation expires now;
- ``POST /dev/domains/recheck``: the daily re-check of every verified domain runs now.

``api.kernel.config.Settings.check`` refuses ``DEV_STAND_INS`` outside development, so production
never mounts this module.
"""

from __future__ import annotations

from typing import Annotated

import httpx
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from sqlalchemy import func, select, update

from api.identity.sso.recheck import recheck_due
from api.models import Account, User

router = APIRouter(include_in_schema=False)


@router.post("/dev/billing/end-period")
async def end_billing_period(request: Request, email: Annotated[str, Query()]) -> JSONResponse:
    """End the current billing period of ``email``'s account now, in the Stripe stand-in
    (devstack/stripe_shim.py ``renew``): a scheduled change takes effect, a plan set to 0
    units ends, and the next month's invoice is charged (a card that declines charges makes it
    past due). Stripe's webhooks then update the console, as they would in production.

    Development only (this router is mounted by the dev app alone). 404 for an unknown email or
    an account without a subscription.
    """
    settings = request.app.state.settings
    async with request.app.state.resources.sessionmaker() as db:
        subscription_id = await db.scalar(
            select(Account.stripe_subscription_id)
            .join(User, User.account_id == Account.id)
            .where(func.lower(User.email) == email.strip().lower())
        )
    if not subscription_id:
        return JSONResponse({"detail": "No subscription for this email"}, status_code=404)
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            f"{settings.stripe.api_base}/v1/test_helpers/subscriptions/{subscription_id}/renew",
            auth=(settings.stripe.secret_key.get_secret_value(), ""),
        )
    return JSONResponse(response.json(), status_code=response.status_code)


@router.post("/dev/invitations/expire")
async def expire_invitation(request: Request, email: Annotated[str, Query()]) -> JSONResponse:
    """Make the pending invitation of ``email`` expire now, as if ``INVITATION_VALIDITY_DAYS``
    had passed (README "Roles and invitations"): the console shows it as Expired and refuses
    its temporary password until it is resent.

    Development only (this router is mounted by the dev app alone). 404 when ``email`` has no
    invitation waiting for a first sign-in.
    """
    async with request.app.state.resources.sessionmaker() as db, db.begin():
        user_id = await db.scalar(
            update(User)
            .where(
                func.lower(User.email) == email.strip().lower(),
                User.invited_at.is_not(None),
                User.signed_in_at.is_(None),
            )
            .values(invitation_expires_at=func.now())
            .returning(User.id)
        )
    if user_id is None:
        return JSONResponse({"detail": "No pending invitation for this email"}, status_code=404)
    return JSONResponse({"expired": str(user_id)})


@router.post("/dev/domains/recheck")
async def recheck_domains(request: Request) -> dict[str, int]:
    """Run the daily re-check of every verified domain now (api/identity/sso/recheck.py);
    lost-domain emails land in the mailbox."""
    state = request.app.state.resources
    report = await recheck_due(state.sessionmaker, state.dns_resolver, interval_s=0)
    return {"kept": report.kept, "lost": report.lost, "unreachable": report.unreachable}
