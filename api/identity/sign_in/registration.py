"""Registration by form (SPEC 3 "Registration form", 4 "Registration", 5, 8 "Registration").

SPEC 7's "Sign-up" (username the email, the password, attribute email) is done with the
admin API: the pool allows sign-up only through it (``AllowAdminCreateUserOnly``), so nobody
can create pool users behind the API's rules (README "Security model"). Order:
AdminCreateUser (no email sent; the email unverified), AdminSetUserPassword (permanent), our
account and user (``email_verified`` false), then a password sign-in (AdminInitiateAuth) that
binds the user to the new pool user's ``sub`` like any sign-in, and the email verification
code; the sign-in's tokens are returned. Once the Cognito user exists, every later failure
(the password, our write, the commit, the sign-in) removes it again through
``undo_on_rollback``, so the same email can retry: nothing is left half-made; a crash before
the commit is undone by the worker (``api.identity.membership.pool_users``).
"""

from __future__ import annotations

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from api.account.service import create_account
from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
)
from api.audit import SignInLog
from api.identity.cognito_errors import cognito_errors
from api.identity.membership import service as membership
from api.identity.membership.pool_users import PoolUserLedger
from api.identity.sign_in.cookies import SessionCookies
from api.identity.sign_in.email_verification import send_first_code
from api.identity.sign_in.errors import InvalidEmailProvider
from api.identity.sign_in.schemas import RegistrationRequest, Tokens
from api.identity.sign_in.service import signed_in, tokens_out, verified_claims
from api.kernel.config import Settings
from api.kernel.db import undo_on_rollback
from api.kernel.emails import email_domain, is_blocked_domain
from api.kernel.errors import ProviderRefused
from api.models import AuthType, Role, User
from api.principal.tokens import AccessTokenVerifier

log = structlog.get_logger(__name__)


async def register(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    verifier: AccessTokenVerifier,
    sign_ins: SignInLog,
    settings: Settings,
    cookies: SessionCookies,
    pool_users: PoolUserLedger,
    form: RegistrationRequest,
) -> Tokens:
    """Create the Cognito user, the account and its first user; sign them in (bound to the
    token's ``sub`` as every sign-in is) and have Cognito email the code that verifies their
    address; return the user's tokens. The address stays unverified until that code is
    entered (``api.identity.sign_in.email_verification``).

    ``form`` is already validated (required fields, email syntax, password rule). Raises:
        InvalidEmailProvider: a free or disposable email domain ('Invalid email provider').
        EmailInUse: the email has a Cognito user or a user of ours already (409).
        ProviderRefused: any other sign-up refusal, with the provider's message.
        VendorUnavailable: Cognito is unreachable (nothing is left behind).
    """
    email = form.email_address
    if is_blocked_domain(email_domain(email)):
        raise InvalidEmailProvider()
    # Unverified until the registrant enters the code Cognito emails them (README "Security
    # model", email ownership).
    attributes = {
        "email": email,
        "email_verified": "false",
        "given_name": form.first_name,
        "family_name": form.last_name,
    }
    # A crash from here to the commit leaves a pool user no row names: the record lets the
    # worker delete it later (api/identity/membership/pool_users.py).
    await pool_users.creating(db, email)
    async with cognito_errors():
        await cognito.admin_create_user(email, attributes, suppress_message=True)

    async def remove_cognito_user() -> None:
        try:
            await cognito.admin_delete_user(email)
        except (CognitoError, CognitoUnavailable):
            log.exception("registration_cleanup_failed", username=email)
        else:
            log.info("registration_rolled_back", username=email)

    undo_on_rollback(db, remove_cognito_user)
    async with cognito_errors():
        await cognito.admin_set_user_password(email, form.new_password, permanent=True)

    account = await create_account(db=db, settings=settings, name=form.organization_name)
    # Who registers an account owns it (README "Roles and invitations"). The unique email
    # index answers EmailInUse: e.g. a Google user of ours already has this address.
    await membership.add(
        db,
        acting=membership.joining(email),
        user=User(
            account_id=account.id,
            identity_id=email,
            first_name=form.first_name,
            last_name=form.last_name,
            email=email,
            auth_type=AuthType.EMAIL,
            role=Role.OWNER,
            email_verified=False,
        ),
        founding=True,
    )
    async with cognito_errors():
        result = await cognito.password_auth(email, form.new_password)
    if result.tokens is None:
        raise ProviderRefused("Unexpected sign-in challenge after registration", "Challenge")
    await signed_in(
        db=db,
        sign_ins=sign_ins,
        claims=await verified_claims(verifier=verifier, tokens=result.tokens),
        method="password",
    )
    await send_first_code(cognito=cognito, access_token=result.tokens.access_token, email=email)
    return tokens_out(result.tokens, cookies)
