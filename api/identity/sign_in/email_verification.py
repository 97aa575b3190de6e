"""Email ownership (README "Security model"): a registered user's address counts as theirs
only once they enter the code Cognito emailed there.

Cognito sends and checks the code (GetUserAttributeVerificationCode, VerifyUserAttribute,
authorised by the user's own access token; neither has an admin form), and our
``user.email_verified`` is set only after Cognito says the address is verified: never from
anything the caller sends us.
"""

from __future__ import annotations

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    CodeMismatchError,
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    NotAuthorizedError,
    TooManyRequestsError,
)
from api.identity.cognito_errors import cognito_errors, refusal
from api.identity.sign_in import repository
from api.identity.sign_in.errors import (
    EmailAlreadyVerified,
    VerificationCodeExpired,
    VerificationCodeMismatch,
)
from api.identity.sign_in.schemas import CodeDelivery, EmailVerificationResponse
from api.kernel.errors import AppError, RateLimited, VendorUnavailable
from api.models import User
from api.principal.errors import NotAuthenticated
from api.principal.principal import Caller

log = structlog.get_logger(__name__)

SESSION_EXPIRED = "Your session has expired. Please sign in again."


def _refused(exc: CognitoError) -> AppError:
    """Cognito's refusals of the code calls, as the banner shows them."""
    if isinstance(exc, CodeMismatchError):
        if exc.code == "ExpiredCodeException":
            return VerificationCodeExpired()
        return VerificationCodeMismatch()
    if isinstance(exc, TooManyRequestsError):
        return RateLimited()
    if isinstance(exc, NotAuthorizedError):
        # The access token was revoked at Cognito (e.g. this browser signed out).
        return NotAuthenticated(SESSION_EXPIRED)
    return refusal(exc)


async def send_code(
    *, cognito: CognitoClient, caller: Caller, access_token: str
) -> EmailVerificationResponse:
    """Have Cognito email ``caller`` a new verification code (each one replaces the last).

    ``access_token`` is the caller's own, already verified. Returns where the code went.
    Raises:
        EmailAlreadyVerified: there is nothing to verify.
        NotAuthenticated: Cognito no longer accepts the token.
        RateLimited: Cognito's own limit on codes.
        ProviderRefused: any other refusal, with the provider's message.
        VendorUnavailable: Cognito is unreachable.
    """
    if caller.email_verified:
        raise EmailAlreadyVerified()
    async with cognito_errors(refused=_refused):
        delivery = await cognito.get_email_verification_code(access_token)
    return EmailVerificationResponse(
        code_delivery=None
        if delivery is None
        else CodeDelivery(
            destination=delivery.destination,
            delivery_medium=delivery.delivery_medium,
            attribute_name=delivery.attribute_name,
        )
    )


async def send_first_code(*, cognito: CognitoClient, access_token: str, email: str) -> None:
    """The code a registration sends at once. A failure here does not undo the registration:
    the banner's Resend asks again."""
    try:
        await cognito.get_email_verification_code(access_token)
    except (CognitoError, CognitoUnavailable):
        log.exception("email_verification_code_not_sent", email=email)


async def confirm(
    *, db: AsyncSession, cognito: CognitoClient, caller: Caller, access_token: str, code: str
) -> None:
    """Check ``code`` with Cognito (VerifyUserAttribute); when Cognito then reports the
    caller's address (the one we hold) verified, record it (``user.email_verified``).

    Raises:
        EmailAlreadyVerified: there is nothing to verify.
        VerificationCodeMismatch: not the latest code Cognito emailed.
        VerificationCodeExpired: the code is too old.
        NotAuthenticated: Cognito no longer accepts the token.
        RateLimited, ProviderRefused, VendorUnavailable.
    """
    if caller.email_verified:
        raise EmailAlreadyVerified()
    assert caller.user_id is not None  # a person's own route: access tokens are refused
    username = await repository.identity_of(db, caller.user_id)
    if username is None:
        raise NotAuthenticated(SESSION_EXPIRED)
    async with cognito_errors(refused=_refused):
        await cognito.verify_email(access_token, code)
        pool_user = await cognito.admin_get_user(username)
    attributes = pool_user.attributes
    if (
        attributes.get("email_verified", "").lower() != "true"
        or attributes.get("email", "").lower() != caller.email.lower()
    ):
        # Cognito accepted a code for another address than ours: nothing is proved.
        log.error("email_verification_mismatch", user_id=str(caller.user_id))
        raise VendorUnavailable()
    await repository.mark_email_verified(db, User.id == caller.user_id)
