"""Google single sign-on and its verified domains (SPEC 4 "SSO setting", 5 "Other", 9
"domain box"; README "Verified domains").

An account proves it owns an email domain by publishing a TXT record at the domain's apex
(api/identity/sso/verification.py). Only verified domains count: Google identities of a verified
domain may join an account that requires Google SSO (api/identity/sign_in/sso_accounts.py), and an
account may require Google SSO only once it has one. A verified domain belongs to one account
at a time; another account that proves it takes it over only when the holder's record is gone
(the holder's domain becomes Lost, its users are emailed, and the take-over is logged as an
audit event: there is no audit table yet).

Requiring Google SSO also means invites are refused and the account's users cannot sign in or
reset a password with a password. Turning it off leaves the domains as they are.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime

import structlog
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.adapters.cognito import CognitoClient
from api.adapters.dns_resolver import DnsBusy, DnsLookupFailed, DnsResolver
from api.audit import DOMAIN_CHECK, AuditAction, AuditTrail, Target
from api.identity.membership.owner_notices import notify_owners
from api.identity.sso import repository, saml, view
from api.identity.sso.errors import (
    DnsUnavailable,
    DomainAlreadyAdded,
    GoogleSsoAuthTypeRequired,
    InvalidDomain,
    PersonalGmailAccount,
    PublicEmailDomain,
    VerifiedDomainRequired,
)
from api.identity.sso.notices import DomainLostNotice, defer_domain_lost
from api.identity.sso.schemas import DomainRecord, Sso
from api.identity.sso.schemas import SsoDomain as SsoDomainOut
from api.identity.sso.verification import (
    RECORD_TYPE,
    failure_message,
    failure_of,
    is_domain_name,
    normalize_domain,
    proves,
    record_value,
)
from api.kernel.emails import email_domain, is_blocked_domain, is_gmail_domain
from api.kernel.errors import NotFound, RateLimited
from api.models import Account, AuthType, DomainFailure, DomainState, SsoDomain, User
from api.principal.principal import Caller
from api.principal.sessions import end_sessions

log = structlog.get_logger(__name__)
DOMAIN_NOT_FOUND = "Domain not found"


# ---------------------------------------------------------------------------------------------
# The setting


async def set_google_sso(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, required: bool
) -> Sso:
    """Turn "require Google SSO" on or off for the caller's account; a change tells every
    Owner by email (api/identity/membership/owner_notices.py).

    Raises:
        PersonalGmailAccount: enabling from a Gmail address.
        GoogleSsoAuthTypeRequired: enabling as a user who did not sign in with Google.
        VerifiedDomainRequired: enabling while the account has no verified domain.
    """
    account = await db.get_one(Account, caller.account_id)
    if required:
        if is_gmail_domain(email_domain(caller.email)):
            raise PersonalGmailAccount()
        if caller.auth_type != AuthType.GOOGLE_SSO:
            raise GoogleSsoAuthTypeRequired()
        if not await repository.verified_domain_names(db, account.id):
            raise VerifiedDomainRequired()
    if account.require_google_sso != required:
        await audit.record(
            AuditAction.SSO_CHANGED,
            Target("account", account.id, account.name),
            {"requireGoogleSSO": (account.require_google_sso, required)},
        )
        await notify_owners(
            db,
            account_id=account.id,
            kind="google-sso-required" if required else "google-sso-not-required",
            subject="Google sign-in is now required"
            if required
            else "Google sign-in is no longer required",
            what=f"The users of {account.name} now sign in with Google only, and anyone with "
            "a Google account at its verified domains can join it."
            if required
            else f"The users of {account.name} may sign in with their email and password or "
            "GitHub again, and nobody joins it through Google by themselves any more.",
            actor=audit.actor.label,
        )
        if required:
            # The users it excludes lose their sessions for good, even if it is turned off
            # again (every request checks the requirement too: api/principal/principal.py).
            await end_sessions(
                db, User.account_id == account.id, User.auth_type != AuthType.GOOGLE_SSO
            )
    account.require_google_sso = required
    await db.flush()
    return await sso_of(db=db, account=account)


async def sso_of(*, db: AsyncSession, account: Account) -> Sso:
    """The account's SSO state as the console shows it (SPEC 3 "sso"), read again after a
    change: the one mapper, :func:`api.identity.sso.view.sso`, over the loaded row and its
    verified domains."""
    domains = await repository.verified_domain_names(db, account.id)
    return Sso.model_validate(
        view.sso(account.require_google_sso, account.require_saml_sso, domains)
    )


# ---------------------------------------------------------------------------------------------
# Domains


def domain_out(row: SsoDomain) -> SsoDomainOut:
    """A domain row as the console shows it, with its TXT record and the last check's
    message."""
    return SsoDomainOut(
        id=row.id,
        domain=row.domain,
        state=row.state,
        failure=row.failure,
        message=failure_message(row.failure, row.domain) if row.failure else None,
        record=DomainRecord(type=RECORD_TYPE, name=row.domain, value=record_value(row.token)),
        checked_at=row.checked_at,
        verified_at=row.verified_at,
    )


async def list_domains(*, db: AsyncSession, caller: Caller) -> list[SsoDomainOut]:
    """The caller's account's domains, by name."""
    return [domain_out(row) for row in await repository.domains_of(db, caller.account_id)]


def _target(row: SsoDomain) -> Target:
    return Target("sso_domain", row.id, row.domain)


async def add_domain(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, value: str
) -> SsoDomainOut:
    """Add a domain to the caller's account, Pending, with a fresh token (192 random bits).

    Args:
        value: the domain as typed (trimmed, lowercased and stripped of a trailing dot here).

    Raises:
        InvalidDomain: not a domain name.
        PublicEmailDomain: a free, disposable or special-use email domain.
        DomainAlreadyAdded: the account lists it already.
    """
    domain = normalize_domain(value)
    if not is_domain_name(domain):
        raise InvalidDomain()
    if is_blocked_domain(domain):
        raise PublicEmailDomain()
    if await repository.domain_named(db, caller.account_id, domain) is not None:
        raise DomainAlreadyAdded()
    row = SsoDomain(
        account_id=caller.account_id,
        domain=domain,
        token=secrets.token_urlsafe(24),
        state=DomainState.PENDING,
    )
    db.add(row)
    try:
        async with db.begin_nested():
            await db.flush()
    except IntegrityError as exc:  # the same domain added twice at once
        raise DomainAlreadyAdded() from exc
    await audit.record(AuditAction.SSO_DOMAIN_ADDED, _target(row))
    return domain_out(row)


async def remove_domain(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    domain_id: uuid.UUID,
) -> None:
    """Remove a domain of the caller's account; if it was verified, auto-join for it stops and
    its people no longer reach the account's SAML connection through 'Sign in with SSO'.

    Raises:
        NotFound: no such domain in the caller's account.
        ProviderRefused, VendorUnavailable: Cognito (the account's SAML connection); nothing
            is removed.
    """
    row = await repository.domain_in_account(db, caller.account_id, domain_id, for_update=True)
    if row is None:
        raise NotFound(DOMAIN_NOT_FOUND)
    await audit.record(
        AuditAction.SSO_DOMAIN_REMOVED, _target(row), {"state": (row.state.value, None)}
    )
    was_verified = row.state is DomainState.VERIFIED
    await db.delete(row)
    await db.flush()
    if was_verified:
        await saml.sync_account_identifiers(db=db, cognito=cognito, account_id=caller.account_id)


DNS_BUSY = "Too many domain checks are running right now. Please try again in a few seconds."


async def verify_domain(
    *,
    db: AsyncSession,
    reads: AsyncEngine,
    resolver: DnsResolver,
    cognito: CognitoClient,
    caller: Caller,
    audit: AuditTrail,
    domain_id: uuid.UUID,
) -> SsoDomainOut:
    """Look up the domain's TXT records now and record the outcome.

    - The record is there: Verified, unless another account holds the domain verified and
      its own record is still published (then Failed, ``VerifiedByAnotherAccount``). When
      the holder's record is gone, the holder's domain becomes Lost (its users are emailed
      once this commits) and the caller's Verified.
    - It is not: Failed with the reason (``DomainNotFound``, ``RecordNotFound``,
      ``WrongToken``), or Lost when the domain was Verified: auto-join stops at once.
    - A change of the verified domains reaches the account's SAML connection (Cognito's
      ``IdpIdentifiers``, 'Sign in with SSO') in the same request.

    The lookup comes first, with no database connection held (the name is read on a
    short autocommit connection of ``reads``); only then is the row locked and written, so a
    slow nameserver ties up no connection of the pool and no row. This process runs at most
    ``DNS_LOOKUPS_PER_REPLICA`` lookups at once; a Verify past that is refused at once
    rather than queued behind lookups that may take ``DNS_LIFETIME_S`` each.

    Returns the domain after the check.

    Raises:
        NotFound: no such domain in the caller's account (also when it was removed during
            the lookup).
        RateLimited: every lookup slot of this process is taken (429, :data:`DNS_BUSY`).
        DnsUnavailable: no nameserver answered in time (503); nothing changed.
        ProviderRefused, VendorUnavailable: Cognito (the account's SAML connection); nothing
            changed.
    """
    async with reads.connect() as connection:
        name = await repository.domain_name(connection, caller.account_id, domain_id)
    if name is None:
        raise NotFound(DOMAIN_NOT_FOUND)
    try:
        lookup = await resolver.txt(name, wait=False)
    except DnsBusy as exc:
        raise RateLimited(DNS_BUSY) from exc
    except DnsLookupFailed as exc:
        log.warning("dns_lookup_failed", domain=name, error=str(exc))
        raise DnsUnavailable() from exc
    row = await repository.domain_in_account(db, caller.account_id, domain_id, for_update=True)
    if row is None:
        raise NotFound(DOMAIN_NOT_FOUND)
    now = datetime.now(UTC)
    failure = failure_of(lookup, row.token)
    if failure is None and row.state is not DomainState.VERIFIED:
        holder = await repository.verified_holder(db, row.domain, other_than=row.account_id)
        if holder is not None and proves(lookup, holder.token):
            failure = DomainFailure.VERIFIED_BY_ANOTHER_ACCOUNT
        elif holder is not None:
            await _take_over(db, holder, failure_of(lookup, holder.token), row, now)
    before = row.state
    record_check(row=row, failure=failure, now=now, was_verified=before is DomainState.VERIFIED)
    try:
        async with db.begin_nested():
            await db.flush()
    except IntegrityError:  # another account verified it in the same instant
        record_check(
            row=row,
            failure=DomainFailure.VERIFIED_BY_ANOTHER_ACCOUNT,
            now=now,
            was_verified=before is DomainState.VERIFIED,
        )
        await db.flush()
    if row.state is not before:
        await audit.record(
            AuditAction.SSO_DOMAIN_VERIFIED,
            _target(row),
            {"state": (before.value, row.state.value)},
        )
        if DomainState.VERIFIED in (before, row.state):
            await saml.sync_account_identifiers(
                db=db, cognito=cognito, account_id=caller.account_id
            )
    return domain_out(row)


async def record_lost(*, db: AsyncSession, row: SsoDomain) -> None:
    """Record in ``row``'s account's audit log that the domain became Lost (auto-join for it
    stopped), with the reason, as the ``DOMAIN_CHECK`` actor."""
    await AuditTrail(db, row.account_id, DOMAIN_CHECK).record(
        AuditAction.SSO_DOMAIN_LOST,
        _target(row),
        {"state": (DomainState.VERIFIED.value, row.state.value), "failure": (None, row.failure)},
    )


def record_check(
    *, row: SsoDomain, failure: DomainFailure | None, now: datetime, was_verified: bool
) -> None:
    """Record a check at ``now`` on ``row``: Verified without a ``failure``; with one, Lost
    when the domain ``was_verified`` before the check (auto-join stops), else Failed."""
    row.checked_at = now
    row.failure = failure
    if failure is None:
        row.state = DomainState.VERIFIED
        row.verified_at = now
    else:
        row.state = DomainState.LOST if was_verified else DomainState.FAILED


async def _take_over(
    db: AsyncSession,
    holder: SsoDomain,
    failure: DomainFailure | None,
    taker: SsoDomain,
    now: datetime,
) -> None:
    """The holder's record is gone: its domain is Lost (flushed first, so the taker's
    Verified passes the one-verified-per-domain index) and its users' emails are deferred in
    the same transaction."""
    holder.state = DomainState.LOST
    holder.failure = failure or DomainFailure.RECORD_NOT_FOUND
    holder.checked_at = now
    await db.flush()
    # In the holder's log, without naming the other account (another tenant's business).
    await record_lost(db=db, row=holder)
    log.info(
        "audit.sso_domain_taken_over",
        domain=taker.domain,
        from_account_id=str(holder.account_id),
        to_account_id=str(taker.account_id),
    )
    notice = DomainLostNotice(
        domain_id=holder.id,
        lost_at=now,
        account_name=await repository.account_name(db, holder.account_id),
        domain=holder.domain,
        token=holder.token,
        failure=holder.failure,
        recipients=tuple(await repository.user_emails(db, holder.account_id)),
    )
    await defer_domain_lost(db, notice)
