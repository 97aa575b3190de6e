"""Accounts for a third-party identity (SPEC 2 "OAuth landing", 4 "Third-party sign-in",
7 sso-accounts calls): look up the accounts its email domain may join, join one, or create a
new account.

The caller proves who it is with the access token from the code exchange. The identity id
and email of a request must be that token's username and the Cognito user's email, so a
request cannot speak for someone else. Whether the identity is Google (or GitHub) and which
email counts come only from what Cognito asserts (api/principal/identity.py), never from the
username. Joining needs a Google Workspace identity (Google asserts the email's domain as its
hosted domain) with a provider-verified email, an account that has Google SSO on and has
verified the email's domain by DNS, and that the account has not removed this person; so an
account id alone opens nothing (a wrong one is a 404).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import func
from sqlalchemy.ext.asyncio import AsyncSession

from api.account.service import create_account
from api.adapters.cognito import CognitoClient
from api.audit import Actor, AuditAction, AuditTrail
from api.identity.cognito_errors import cognito_errors
from api.identity.membership import service as membership
from api.identity.sign_in import repository
from api.identity.sign_in.errors import EmailNotVerified
from api.identity.sign_in.schemas import SsoAccount, SsoAccountsResponse
from api.kernel.config import Settings
from api.kernel.db import new_id
from api.kernel.emails import email_domain, is_gmail_domain, normalize_email
from api.kernel.errors import BadRequest, Conflict, NotFound
from api.models import AuthType, Role, User
from api.principal.errors import RemovedFromAccount, removed_message
from api.principal.identity import ProvenIdentity, prove_identity
from api.principal.sessions import was_removed
from api.principal.tokens import AccessClaims

IDENTITY_MISMATCH = "The identity does not match your sign-in"
ALREADY_MEMBER = "This identity already belongs to an account"
FEDERATED_ONLY = "Sign in with Google or GitHub to create an account here"


@dataclass(frozen=True, slots=True)
class ClaimedIdentity:
    """The third-party identity a request says it speaks for (SPEC 3 "Join payload",
    "Create-account payload"; the lookup's ``cognitoId`` and ``email``), built once by the
    router from the request. Nothing in it is trusted: :func:`_prove` checks ``identity_id``
    and ``email`` against the access token and the Cognito user, and the names are what the
    person typed (the new user's names; empty for a lookup)."""

    identity_id: str
    email: str
    first_name: str = ""
    last_name: str = ""


async def _prove(
    *, cognito: CognitoClient, settings: Settings, claims: AccessClaims, claimed: ClaimedIdentity
) -> ProvenIdentity:
    """The caller's identity as Cognito asserts it, after checking the request speaks for the
    token's own identity and its current email. Raises BadRequest (mismatch) or
    VendorUnavailable."""
    if claimed.identity_id != claims.username:
        raise BadRequest(IDENTITY_MISMATCH)
    async with cognito_errors(refused=lambda _: BadRequest(IDENTITY_MISMATCH)):
        user = await cognito.admin_get_user(claims.username)
    identity = prove_identity(user)
    if not identity.email or identity.email != normalize_email(claimed.email):
        raise BadRequest(IDENTITY_MISMATCH)
    return identity


def _require_verified_email(identity: ProvenIdentity) -> None:
    if not identity.email_verified:
        raise EmailNotVerified()


def _may_auto_join(identity: ProvenIdentity) -> bool:
    """SPEC 4: only Google identities look up accounts of their domain, never for Gmail; and
    only a Google Workspace identity of the email's domain (Google asserts that hosted
    domain): a personal Google account created on a company address can be invited by
    email, never auto-join (README "Security model")."""
    return (
        identity.auth_type is AuthType.GOOGLE_SSO
        and not is_gmail_domain(email_domain(identity.email))
        and identity.is_workspace_of_email_domain
    )


async def lookup(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    settings: Settings,
    claims: AccessClaims,
    claimed: ClaimedIdentity,
) -> SsoAccountsResponse:
    """Accounts a Google identity may join: Google SSO on and the email's domain verified;
    an account that removed this person is listed with the refusal it would answer.

    Identities Cognito does not assert as Google (whatever their username), Gmail addresses
    and identities whose hosted domain is not the email's get an empty list. Raises
    BadRequest (not the caller's identity), EmailNotVerified (a Google identity whose email
    the provider did not verify), VendorUnavailable.
    """
    identity = await _prove(cognito=cognito, settings=settings, claims=claims, claimed=claimed)
    domain = email_domain(identity.email)
    if not _may_auto_join(identity):
        return SsoAccountsResponse(accounts=[], domain=domain)
    _require_verified_email(identity)
    accounts = await repository.joinable_accounts(db, domain)
    return SsoAccountsResponse(
        accounts=[
            SsoAccount(
                account_id=a.id,
                account_name=a.name,
                users_count=a.users_count,
                refusal=removed_message(a.name) if await _removed(db, a.id, identity) else None,
            )
            for a in accounts
        ],
        domain=domain,
    )


async def _removed(db: AsyncSession, account_id: uuid.UUID, identity: ProvenIdentity) -> bool:
    """Whether the account removed this person: same email, or same identity at Google."""
    return await was_removed(
        db,
        account_id,
        identity.email,
        provider=identity.auth_type.value,
        provider_subject=identity.provider_subject,
    )


def _new_user(
    *,
    account_id: uuid.UUID,
    sub: str,
    identity: ProvenIdentity,
    claimed: ClaimedIdentity,
    role: Role,
) -> User:
    """The identity's user in the account: who it is as Cognito asserts it (``identity``),
    named as the person typed (``claimed``)."""
    return User(
        id=new_id(),  # known before the row is written: the audit log names its own join
        account_id=account_id,
        identity_id=identity.username,
        identity_sub=sub,
        first_name=claimed.first_name.strip(),
        last_name=claimed.last_name.strip(),
        email=identity.email,
        auth_type=identity.auth_type,
        role=role,
        signed_in_at=func.now(),
    )


async def join(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    settings: Settings,
    claims: AccessClaims,
    client_address: str,
    account_id: uuid.UUID,
    claimed: ClaimedIdentity,
) -> None:
    """Add the Google identity as a user of an account that has Google SSO on and its domain
    verified.

    Raises: BadRequest (not the caller's identity), Conflict (already in an account),
    NotFound (not a Google Workspace identity of the email's domain, or no such joinable
    account for it), RemovedFromAccount (the account removed this person: same email or same
    Google identity), EmailNotVerified, EmailInUse, VendorUnavailable.
    """
    identity = await _prove(cognito=cognito, settings=settings, claims=claims, claimed=claimed)
    if await repository.identity_has_user(db, identity.username):
        raise Conflict(ALREADY_MEMBER)
    if not _may_auto_join(identity):
        raise NotFound()
    _require_verified_email(identity)
    domain = email_domain(identity.email)
    account = await repository.joinable_account(db, account_id, domain)
    if account is None:
        raise NotFound()
    if await _removed(db, account_id, identity):
        raise RemovedFromAccount(removed_message(account.name))
    # Users who join through Google SSO are Members until an Owner changes it.
    user = _new_user(
        account_id=account_id,
        sub=claims.sub,
        identity=identity,
        claimed=claimed,
        role=Role.MEMBER,
    )
    name = f"{user.first_name} {user.last_name}".strip()
    await membership.add(
        db,
        acting=membership.joining(f"{name} <{user.email}>"),
        # They are the actor of their own join.
        audit=AuditTrail(db, account_id, Actor(user.id, name, user.email, client_address)),
        user=user,
        action=AuditAction.USER_JOINED,
        changes={"role": (None, user.role.value), "via": (None, "Google SSO")},
    )


async def create(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    settings: Settings,
    claims: AccessClaims,
    account_name: str,
    claimed: ClaimedIdentity,
) -> None:
    """Create a new account (name already trimmed, non-empty) with the federated identity as
    its first user. Raises: BadRequest (not the caller's identity, or not federated: password
    users register by form), Conflict, EmailNotVerified, EmailInUse, VendorUnavailable."""
    identity = await _prove(cognito=cognito, settings=settings, claims=claims, claimed=claimed)
    if await repository.identity_has_user(db, identity.username):
        raise Conflict(ALREADY_MEMBER)
    if identity.auth_type is AuthType.EMAIL:
        raise BadRequest(FEDERATED_ONLY)
    _require_verified_email(identity)
    account = await create_account(db=db, settings=settings, name=account_name)
    user = _new_user(
        account_id=account.id,
        sub=claims.sub,
        identity=identity,
        claimed=claimed,
        role=Role.OWNER,
    )
    await membership.add(db, acting=membership.joining(identity.email), user=user, founding=True)


async def land_provisioned_user(*, db: AsyncSession, identity: ProvenIdentity) -> bool:
    """Bind a person the account's directory provisioned (SCIM, README "Directory sync
    (SCIM)") to the federated ``identity`` signing in for the first time, so they land in the
    account with no join step: their Pending user gets the identity's username and sign-in
    type, and the sign-in that follows (``service.signed_in``) binds the pool user and makes
    them Active.

    Only what auto-join would accept proves it is them: an identity Cognito asserts as a
    Google Workspace account of its email's domain, with a provider-verified email equal to
    the provisioned user's, in an account that requires that single sign-on and verified the
    domain (a SAML identity is linked by ``api.identity.sso.saml.provision`` instead). Returns
    whether a user was bound.
    """
    if not (_may_auto_join(identity) and identity.email_verified):
        return False
    return await membership.land_provisioned_user(
        db,
        email=identity.email,
        identity_id=identity.username,
        auth_type=identity.auth_type,
        accounts=repository.joinable_account_ids(email_domain(identity.email)),
    )
