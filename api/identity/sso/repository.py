"""Queries of the SSO domains, scoped to the caller's account except where a rule needs
another account's row (who holds a domain verified, which domains are due a re-check)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import String, exists, func, literal, select, text
from sqlalchemy.dialects.postgresql import ARRAY, aggregate_order_by
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from api.models import Account, AuthType, DomainState, Role, SamlConnection, SsoDomain, User


async def domains_of(db: AsyncSession, account_id: uuid.UUID) -> list[SsoDomain]:
    """The account's domains, by name."""
    rows = await db.scalars(
        select(SsoDomain).where(SsoDomain.account_id == account_id).order_by(SsoDomain.domain)
    )
    return list(rows)


async def verified_domain_names(db: AsyncSession, account_id: uuid.UUID) -> list[str]:
    """The names of the account's verified domains, sorted."""
    rows = await db.scalars(
        select(SsoDomain.domain)
        .where(SsoDomain.account_id == account_id, SsoDomain.state == DomainState.VERIFIED)
        .order_by(SsoDomain.domain)
    )
    return list(rows)


async def has_verified_domain(connection: AsyncConnection, account_id: uuid.UUID) -> bool:
    """Whether the account holds a verified domain (no lock: read on an autocommit
    connection before a metadata URL is fetched)."""
    found = await connection.scalar(
        select(
            exists().where(
                SsoDomain.account_id == account_id, SsoDomain.state == DomainState.VERIFIED
            )
        )
    )
    return bool(found)


async def domain_in_account(
    db: AsyncSession, account_id: uuid.UUID, domain_id: uuid.UUID, *, for_update: bool = False
) -> SsoDomain | None:
    """The domain ``domain_id`` if it belongs to the account (locked with ``for_update``)."""
    query = select(SsoDomain).where(SsoDomain.id == domain_id, SsoDomain.account_id == account_id)
    if for_update:
        query = query.with_for_update()
    return await db.scalar(query)


async def domain_name(
    connection: AsyncConnection, account_id: uuid.UUID, domain_id: uuid.UUID
) -> str | None:
    """The name of the domain ``domain_id`` if it belongs to the account (no lock: read on
    an autocommit connection before the DNS lookup)."""
    result = await connection.scalar(
        select(SsoDomain.domain).where(
            SsoDomain.id == domain_id, SsoDomain.account_id == account_id
        )
    )
    return None if result is None else str(result)


async def domain_named(db: AsyncSession, account_id: uuid.UUID, domain: str) -> SsoDomain | None:
    """The account's row for ``domain``, if it lists it."""
    return await db.scalar(
        select(SsoDomain).where(SsoDomain.account_id == account_id, SsoDomain.domain == domain)
    )


async def verified_holder(db: AsyncSession, domain: str, other_than: uuid.UUID) -> SsoDomain | None:
    """The row of another account that holds ``domain`` verified, locked (FOR UPDATE) so a
    take-over and a re-check of it cannot interleave."""
    return await db.scalar(
        select(SsoDomain)
        .where(
            SsoDomain.domain == domain,
            SsoDomain.state == DomainState.VERIFIED,
            SsoDomain.account_id != other_than,
        )
        .with_for_update()
    )


async def next_due(
    db: AsyncSession, checked_before: datetime, skip: set[uuid.UUID]
) -> SsoDomain | None:
    """One verified domain last checked before ``checked_before`` (or never), not in
    ``skip``, locked with FOR UPDATE SKIP LOCKED: rows another process is checking are
    passed over, so replicas share the re-check without doing any row twice."""
    query = (
        select(SsoDomain)
        .where(SsoDomain.state == DomainState.VERIFIED)
        .where((SsoDomain.checked_at < checked_before) | SsoDomain.checked_at.is_(None))
        .order_by(SsoDomain.checked_at.asc().nulls_first())
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    if skip:
        query = query.where(SsoDomain.id.not_in(skip))
    return await db.scalar(query)


async def account_name(db: AsyncSession, account_id: uuid.UUID) -> str:
    """The account's name."""
    name = await db.scalar(select(Account.name).where(Account.id == account_id))
    return name or ""


async def user_emails(db: AsyncSession, account_id: uuid.UUID) -> list[str]:
    """The email addresses of the account's users, sorted."""
    rows = await db.scalars(
        select(User.email).where(User.account_id == account_id).order_by(User.email)
    )
    return list(rows)


# SAML connections (README "SAML single sign-on").


async def connection_of(
    db: AsyncSession, account_id: uuid.UUID, *, for_update: bool = False
) -> SamlConnection | None:
    """The account's SAML connection, if it has one (locked with ``for_update``)."""
    query = select(SamlConnection).where(SamlConnection.account_id == account_id)
    if for_update:
        query = query.with_for_update()
    return await db.scalar(query)


async def connection_by_id(
    db: AsyncSession, connection_id: uuid.UUID, *, for_update: bool = False
) -> SamlConnection | None:
    """The connection ``connection_id`` (the upkeep's own reads; locked with ``for_update``)."""
    query = select(SamlConnection).where(SamlConnection.id == connection_id)
    if for_update:
        query = query.with_for_update()
    return await db.scalar(query)


async def connection_named(db: AsyncSession, provider_name: str) -> SamlConnection | None:
    """The connection Cognito knows as ``provider_name`` (whichever account it belongs to:
    a SAML identity names its provider, which names its account)."""
    return await db.scalar(
        select(SamlConnection).where(SamlConnection.provider_name == provider_name)
    )


async def connection_of_verified_domain(db: AsyncSession, domain: str) -> SamlConnection | None:
    """The SAML connection of the account that holds ``domain`` verified, if it has one (a
    verified domain belongs to one account)."""
    found: SamlConnection | None = await db.scalar(
        select(SamlConnection)
        .join(SsoDomain, SsoDomain.account_id == SamlConnection.account_id)
        .where(SsoDomain.domain == domain, SsoDomain.state == DomainState.VERIFIED)
    )
    return found


async def connections_holding(
    db: AsyncSession, identifiers: list[str], other_than: uuid.UUID
) -> list[SamlConnection]:
    """Other accounts' connections that Cognito still routes any of ``identifiers`` to
    (domains they held verified when last sent), locked."""
    rows = await db.scalars(
        select(SamlConnection)
        .where(SamlConnection.account_id != other_than)
        .where(SamlConnection.idp_identifiers.overlap(identifiers))
        .order_by(SamlConnection.id)
        .with_for_update()
    )
    return list(rows)


LOCK_NOT_AVAILABLE = "55P03"  # SQLSTATE lock_not_available: lock_timeout ran out


async def lock_app_client(db: AsyncSession, key: int, *, timeout_ms: int) -> bool:
    """Take the transaction-scoped advisory lock ``key``, held until ``db``'s transaction
    ends (the app client's lists are read, changed and written whole, one writer at a time),
    waiting at most ``timeout_ms`` for it (``lock_timeout``, for this statement only).

    Returns False when the wait ran out: PostgreSQL then aborted ``db``'s transaction, which
    must be rolled back.
    """
    previous = await db.scalar(text("SELECT current_setting('lock_timeout')"))
    await db.execute(
        text("SELECT set_config('lock_timeout', :timeout, true)"), {"timeout": f"{timeout_ms}ms"}
    )
    try:
        await db.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) == LOCK_NOT_AVAILABLE:
            return False
        raise
    await db.execute(
        text("SELECT set_config('lock_timeout', :previous, true)"), {"previous": previous}
    )
    return True


async def user_with_email(db: AsyncSession, email: str) -> User | None:
    """The user with this email (any case, any account), locked."""
    return await db.scalar(
        select(User).where(func.lower(User.email) == email.lower()).with_for_update()
    )


async def users_signing_in_with(
    db: AsyncSession, account_id: uuid.UUID, auth_type: AuthType
) -> list[User]:
    """The account's users of ``auth_type``, locked."""
    rows = await db.scalars(
        select(User)
        .where(User.account_id == account_id, User.auth_type == auth_type)
        .with_for_update()
    )
    return list(rows)


async def manager_emails(db: AsyncSession, account_id: uuid.UUID) -> list[str]:
    """The email addresses of the account's Owners and Admins, sorted."""
    rows = await db.scalars(
        select(User.email)
        .where(User.account_id == account_id, User.role.in_([Role.OWNER, Role.ADMIN]))
        .order_by(User.email)
    )
    return list(rows)


async def next_connection_due(
    db: AsyncSession, checked_before: datetime, skip: set[uuid.UUID]
) -> SamlConnection | None:
    """One connection set up by metadata URL whose metadata was last fetched before
    ``checked_before``, not in ``skip``, locked with FOR UPDATE SKIP LOCKED (workers share the
    pass, none does a connection twice)."""
    query = (
        select(SamlConnection)
        .where(SamlConnection.metadata_url.is_not(None))
        .where(SamlConnection.metadata_checked_at < checked_before)
        .order_by(SamlConnection.metadata_checked_at)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    if skip:
        query = query.where(SamlConnection.id.not_in(skip))
    return await db.scalar(query)


async def next_connection_out_of_step(
    db: AsyncSession,
    skip: set[uuid.UUID],
    *,
    max_length: int,
    max_count: int,
    refused_before: datetime,
) -> SamlConnection | None:
    """One connection whose identifiers are not what ``saml.identifiers_of`` makes of its
    account's verified domains (those of at most ``max_length`` characters, the first
    ``max_count`` of them in code-point order), not in ``skip`` and not refused by Cognito
    since ``refused_before``, locked with FOR UPDATE SKIP LOCKED.

    The aggregate sorts with ``COLLATE "C"`` (code-point order, Python's ``sorted`` for ASCII
    domains): under the database's collation (en_US.utf8 ignores punctuation first, putting
    'acme.com' before 'acme-corp.com') a connection with two such domains would look out of
    step at every pass. It applies Cognito's limits as Python does, so a domain Cognito cannot
    hold never makes a connection look out of step."""
    eligible = func.array_agg(
        aggregate_order_by(SsoDomain.domain, SsoDomain.domain.collate("C"))
    ).filter(func.char_length(SsoDomain.domain) <= max_length)
    verified = (
        select(func.coalesce(eligible[1:max_count], literal([], ARRAY(String(253)))))
        .where(SsoDomain.account_id == SamlConnection.account_id)
        .where(SsoDomain.state == DomainState.VERIFIED)
        .scalar_subquery()
    )
    query = (
        select(SamlConnection)
        .where(SamlConnection.idp_identifiers.is_distinct_from(verified))
        .where(
            SamlConnection.identifiers_failed_at.is_(None)
            | (SamlConnection.identifiers_failed_at < refused_before)
        )
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    if skip:
        query = query.where(SamlConnection.id.not_in(skip))
    return await db.scalar(query)


async def next_expiring_unnoticed(
    db: AsyncSession, expires_before: datetime, skip: set[uuid.UUID]
) -> SamlConnection | None:
    """One connection whose signing certificate expires before ``expires_before`` and whose
    Owners and Admins were not emailed about that certificate yet, not in ``skip``, locked
    with FOR UPDATE SKIP LOCKED."""
    query = (
        select(SamlConnection)
        .where(SamlConnection.certificate_expires_at < expires_before)
        .where(
            SamlConnection.expiry_notice_for.is_(None)
            | (SamlConnection.expiry_notice_for != SamlConnection.certificate_expires_at)
        )
        .order_by(SamlConnection.certificate_expires_at)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    if skip:
        query = query.where(SamlConnection.id.not_in(skip))
    return await db.scalar(query)
