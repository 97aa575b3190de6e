"""Accounts for a third-party identity (SPEC 2 "OAuth landing", 4 "Third-party sign-in",
7 sso-accounts calls): look up the accounts its email domain may join, join one, or create a
new account.

The caller proves who it is with the access token from the code exchange. The identity id
and email of a request must be that token's username and the Cognito user's email, so a
request cannot speak for someone else; joining needs an account that has Google SSO on and
lists the email's domain, so an account id alone opens nothing (a wrong one is a 404).
"""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from api.account.models import Account
from api.account.service import new_api_key
from api.adapters.cognito import CognitoClient, CognitoError, CognitoUnavailable
from api.config import Settings
from api.errors import BadRequest, Conflict, EmailInUse, NotFound, VendorUnavailable
from api.session import repository, rules
from api.session.schemas import SsoAccount, SsoAccountsResponse
from api.session.tokens import AccessClaims
from api.users.models import AuthType, User

IDENTITY_MISMATCH = "The identity does not match your sign-in"
ALREADY_MEMBER = "This identity already belongs to an account"


def auth_type_of(identity_id: str) -> AuthType:
    """How a Cognito username signs in: ``google_…`` Google SSO, ``github_…`` GitHub."""
    if identity_id.startswith("google_"):
        return AuthType.GOOGLE_SSO
    if identity_id.startswith("github_"):
        return AuthType.GITHUB
    return AuthType.EMAIL


async def _verified_email(
    cognito: CognitoClient, claims: AccessClaims, identity_id: str, email: str
) -> str:
    """The identity's email as Cognito has it, after checking the request speaks for the
    token's own identity. Raises BadRequest (mismatch) or VendorUnavailable."""
    if identity_id != claims.username:
        raise BadRequest(IDENTITY_MISMATCH)
    try:
        user = await cognito.admin_get_user(claims.username)
    except CognitoError as exc:
        raise BadRequest(IDENTITY_MISMATCH) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    verified = rules.normalize_email(user.attributes.get("email", ""))
    if not verified or verified != rules.normalize_email(email):
        raise BadRequest(IDENTITY_MISMATCH)
    return verified


async def lookup(
    db: AsyncSession, cognito: CognitoClient, claims: AccessClaims, cognito_id: str, email: str
) -> SsoAccountsResponse:
    """Accounts a Google identity may join: Google SSO on and the email's domain listed.

    Non-Google identities and Gmail addresses get an empty list (SPEC 4: only ``google_``
    usernames are looked up). Raises BadRequest (not the caller's identity), VendorUnavailable.
    """
    verified = await _verified_email(cognito, claims, cognito_id, email)
    domain = rules.email_domain(verified)
    if auth_type_of(cognito_id) is not AuthType.GOOGLE_SSO or rules.is_gmail_domain(domain):
        return SsoAccountsResponse(accounts=[], domain=domain)
    accounts = await repository.joinable_accounts(db, domain)
    return SsoAccountsResponse(
        accounts=[
            SsoAccount(account_id=a.id, account_name=a.name, users_count=a.users_count)
            for a in accounts
        ],
        domain=domain,
    )


async def _add_user(
    db: AsyncSession,
    account_id: uuid.UUID,
    identity_id: str,
    email: str,
    first_name: str,
    last_name: str,
) -> None:
    db.add(
        User(
            account_id=account_id,
            identity_id=identity_id,
            first_name=first_name.strip(),
            last_name=last_name.strip(),
            email=email,
            auth_type=auth_type_of(identity_id),
        )
    )
    try:
        await db.flush()
    except IntegrityError as exc:
        raise EmailInUse() from exc


async def join(
    db: AsyncSession,
    cognito: CognitoClient,
    claims: AccessClaims,
    account_id: uuid.UUID,
    identity_id: str,
    email: str,
    first_name: str,
    last_name: str,
) -> None:
    """Add the Google identity as a user of an account that has Google SSO on for its domain.

    Raises: BadRequest (not the caller's identity), Conflict (already in an account),
    NotFound (no such joinable account for this identity), EmailInUse, VendorUnavailable.
    """
    verified = await _verified_email(cognito, claims, identity_id, email)
    if await repository.identity_has_user(db, identity_id):
        raise Conflict(ALREADY_MEMBER)
    domain = rules.email_domain(verified)
    if auth_type_of(identity_id) is not AuthType.GOOGLE_SSO or rules.is_gmail_domain(domain):
        raise NotFound()
    if await repository.joinable_account(db, account_id, domain) is None:
        raise NotFound()
    await _add_user(db, account_id, identity_id, verified, first_name, last_name)


async def create(
    db: AsyncSession,
    cognito: CognitoClient,
    settings: Settings,
    claims: AccessClaims,
    account_name: str,
    identity_id: str,
    email: str,
    first_name: str,
    last_name: str,
) -> None:
    """Create a new account (name already trimmed, non-empty) with the identity as its first
    user. Raises: BadRequest, Conflict, EmailInUse, VendorUnavailable."""
    verified = await _verified_email(cognito, claims, identity_id, email)
    if await repository.identity_has_user(db, identity_id):
        raise Conflict(ALREADY_MEMBER)
    account = Account(
        name=account_name,
        api_key=new_api_key(),
        unit_plan_requests=settings.unit_plan_requests,
        free_plan_requests=settings.free_plan_requests,
    )
    db.add(account)
    await db.flush()
    await _add_user(db, account.id, identity_id, verified, first_name, last_name)
