"""SAML single sign-on, set up by the account's Owners themselves (SPEC 4 "SSO setting": saml;
README "SAML single sign-on"; who a connection speaks for: README "Security model", "Who someone
is").

The console is not the SAML service provider: Cognito is. A connection is a SAML identity
provider of the user pool (CreateIdentityProvider, ``ProviderType`` SAML) named after the
account (:func:`provider_name_of`), whose metadata is the one the account gave (checked by
api/identity/sso/saml_metadata.py and sent as ``MetadataFile``), whose ``IdpIdentifiers`` are the
account's verified domains within Cognito's limits (:func:`identifiers_of`; Cognito routes
``idp_identifier=<domain>`` to it, and a domain it cannot hold is routed by the connection's
name, :func:`connection_for_domain`) and whose
``AttributeMapping`` takes the email and names from the attributes :data:`ATTRIBUTES` names;
it is listed in the app client's ``SupportedIdentityProviders``. Cognito validates the
identity provider's responses and mints tokens for its people, whose ``identities`` attribute
names the connection (api/principal/identity.py).

- Saving checks the metadata first (nothing changes when it is refused; a metadata URL is
  fetched before the transaction, with no connection or lock held), then writes our row and
  Cognito's provider; a failure after a Cognito step undoes it (``undo_on_rollback``).
- The app client's lists are replaced whole by UpdateUserPoolClient, so they are read,
  changed and written under a PostgreSQL advisory lock: two accounts saving at once lose
  neither provider.
- A domain is an identifier of one provider at a time (Cognito refuses duplicates), and a
  verified domain belongs to one account: when a domain moved to another account, the old
  connection gives it up first (:func:`sync_identifiers`).
- The first sign-in of a person through the connection (:func:`provision`) creates their
  user in the account (a Member), or links the existing user of that email in the account
  when an Owner made or confirmed the connection (``linking_confirmed_at``); their email must
  be at one of the account's verified domains. An identity provider asserts whatever its
  administrator types, so linking an existing user (an Owner, say) is only as trustworthy as
  whoever chose the identity provider: connecting one is an Owner's, and a connection an Admin
  saved before that is confirmed by an Owner (:func:`confirm_linking`) before it links anyone.
- Metadata that asks for signed sign-in requests has Cognito sign them
  (api/identity/sso/saml_idp_needs.py); the set-up shows the pool's signing certificate for the
  identity provider (GetSigningCertificate).
- Connecting, replacing, removing and requiring it tell every Owner by email
  (api/identity/membership/owner_notices.py), in the change's transaction.
- Requiring it ends the sessions of everyone else; removing it lets the account's users
  sign in with email and password again (they set one with Forgot password).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import func
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    IdentityProvider,
    ResourceNotFoundError,
)
from api.adapters.metadata_url import MetadataFetcher, MetadataUnreachable, MetadataUrlRefused
from api.audit import Actor, AuditAction, AuditTrail, SigningIn, Target
from api.identity.cognito_errors import cognito_errors
from api.identity.membership import service as membership
from api.identity.membership.owner_notices import notify_owners
from api.identity.sso import repository
from api.identity.sso.errors import (
    SamlConnectionRequired,
    SamlMetadataUnreachable,
    SamlSsoAuthTypeRequired,
    SsoChangeBusy,
    VerifiedDomainRequired,
)
from api.identity.sso.saml_idp_needs import (
    REQUEST_SIGNING_ALGORITHM,
    refuse_tenant_independent,
    wants_signed_requests,
)
from api.identity.sso.saml_metadata import IdpMetadata, parse_metadata
from api.identity.sso.schemas import SamlConnection as SamlConnectionOut
from api.identity.sso.schemas import SamlSettingsResponse, SamlTest, ServiceProvider
from api.kernel.config import Settings
from api.kernel.db import new_id, undo_on_rollback
from api.kernel.emails import email_domain, is_valid_email
from api.kernel.errors import EmailInUse, NotFound
from api.kernel.schemas import CONTROL_CHARACTERS, EMAIL_MAX_LENGTH, NAME_MAX_LENGTH
from api.models import Account, AuthType, Role, SamlConnection, User
from api.principal.errors import RemovedFromAccount, removed_message
from api.principal.identity import ProvenIdentity
from api.principal.principal import Caller
from api.principal.sessions import end_sessions, was_removed

log = structlog.get_logger(__name__)

NAME_ID_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
ATTRIBUTES = {"email": "email", "given_name": "firstName", "family_name": "lastName"}
"""The pool attribute -> the SAML attribute the identity provider sends it in (Cognito's
``AttributeMapping``; the set-up screen tells the administrator these names)."""

EXPIRY_WARNING = timedelta(days=30)
"""A signing certificate expiring this soon is warned about (User Management, an email)."""

APP_CLIENT_LOCK = 0x5A4D4C5F41505043  # "ZML_APPC": the advisory lock of the app client's lists
APP_CLIENT_LOCK_TIMEOUT_MS = 10_000
"""How long a save or removal waits for :data:`APP_CLIENT_LOCK` (its holder makes two Cognito
calls) before answering ``SsoChangeBusy``, rather than holding its connection indefinitely."""
NO_DOMAIN = "Verify your company's domain before setting up SAML single sign-on."
IDENTIFIER_MAX_LENGTH = 40
"""The longest ``IdpIdentifier`` Cognito takes (see :data:`IDENTIFIERS_MAX`)."""
IDENTIFIERS_MAX = 50
"""What Cognito allows a SAML identity provider: at most 50 ``IdpIdentifiers``, each 1 to 40
characters (botocore's cognito-idp model, ``IdpIdentifiersListType`` and
``IdpIdentifierType``), while a verified domain may have 253 (README "SAML single sign-on",
Limits; :func:`identifiers_of`)."""


def provider_name_of(account_id: uuid.UUID) -> str:
    """The pool's name of the account's identity provider: ``saml-`` and 27 hex digits of the
    account id (ProviderName: up to 32 characters, no underscore, which Cognito puts between
    it and the NameID in usernames)."""
    return f"saml-{account_id.hex[:27]}"


def service_provider(settings: Settings) -> ServiceProvider:
    """What the identity provider is told about Cognito, the service provider ("Adding SAML
    identity providers to a user pool": the audience ``urn:amazon:cognito:sp:<pool id>`` and
    the ACS URL ``https://<domain>/saml2/idpresponse``)."""
    return ServiceProvider(
        entity_id=f"urn:amazon:cognito:sp:{settings.cognito.user_pool_id}",
        acs_url=f"{settings.cognito.hosted_ui_url.rstrip('/')}/saml2/idpresponse",
        name_id_format=NAME_ID_FORMAT,
        email_attribute=ATTRIBUTES["email"],
        first_name_attribute=ATTRIBUTES["given_name"],
        last_name_attribute=ATTRIBUTES["family_name"],
    )


def expires_soon(row: SamlConnection, now: datetime) -> bool:
    """Whether the connection's signing certificate expires within :data:`EXPIRY_WARNING`."""
    return row.certificate_expires_at - now <= EXPIRY_WARNING


def _test(row: SamlConnection, tested_at: datetime) -> SamlTest:
    return SamlTest(
        tested_at=tested_at,
        email=row.last_test_email,
        first_name=row.last_test_first_name,
        last_name=row.last_test_last_name,
        problem=row.last_test_problem,
    )


@dataclass(frozen=True, slots=True)
class Identifiers:
    """What a connection's ``IdpIdentifiers`` are, from its account's verified domains:
    ``sent`` the identifiers Cognito holds, ``too_long`` the domains longer than
    :data:`IDENTIFIER_MAX_LENGTH`, ``over_limit`` those past the first
    :data:`IDENTIFIERS_MAX` in code-point (alphabetical) order. Both kinds still sign in with
    'Sign in with SSO', which names the connection instead (:func:`connection_for_domain`)."""

    sent: list[str]
    too_long: list[str]
    over_limit: list[str]

    @property
    def notices(self) -> list[str]:
        """One sentence per domain that is not an identifier, for the set-up."""
        routed = (
            "people at it still sign in with 'Sign in with SSO', which sends them to this "
            "connection by its name."
        )
        return [
            f"{domain} is longer than the {IDENTIFIER_MAX_LENGTH} characters Cognito allows "
            "for a SAML identifier: Cognito does not route it by itself, and " + routed
            for domain in self.too_long
        ] + [
            f"{domain} is past the {IDENTIFIERS_MAX} identifiers Cognito allows for a SAML "
            f"identity provider (the first {IDENTIFIERS_MAX} verified domains in alphabetical "
            "order are sent): " + routed
            for domain in self.over_limit
        ]


def identifiers_of(verified_domains: Iterable[str]) -> Identifiers:
    """The identifiers of a connection whose account holds ``verified_domains``: those of at
    most :data:`IDENTIFIER_MAX_LENGTH` characters, the first :data:`IDENTIFIERS_MAX` of them
    in code-point order (the order ``repository.next_connection_out_of_step`` compares in).
    Domains are lowercase letters, digits, hyphens and dots, which Cognito's identifier
    pattern ``[\\w\\s+=.@-]+`` accepts."""
    ordered = sorted(verified_domains)
    short = [d for d in ordered if len(d) <= IDENTIFIER_MAX_LENGTH]
    return Identifiers(
        sent=short[:IDENTIFIERS_MAX],
        too_long=[d for d in ordered if len(d) > IDENTIFIER_MAX_LENGTH],
        over_limit=short[IDENTIFIERS_MAX:],
    )


def signing_certificate_pem(certificate: str) -> str:
    """Cognito's signing certificate (base64 DER as GetSigningCertificate gives it, or a PEM)
    as a PEM, the form identity providers take in an upload or a text box."""
    if certificate.lstrip().startswith("-----BEGIN"):
        return certificate.strip() + "\n"
    body = "".join(certificate.split())
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n"


async def _signing_certificate(cognito: CognitoClient) -> str | None:
    """The pool's current signing certificate (PEM), or None when Cognito does not answer
    (the set-up shows the rest, and says the certificate could not be read)."""
    try:
        return signing_certificate_pem(await cognito.get_signing_certificate())
    except (CognitoError, CognitoUnavailable, TimeoutError):
        log.warning("saml_signing_certificate_unavailable", exc_info=True)
        return None


async def _view(
    db: AsyncSession, cognito: CognitoClient, row: SamlConnection, now: datetime | None = None
) -> SamlConnectionOut:
    """A connection as the console shows it, with who confirmed its linking and, when its
    identity provider wants signed requests, the pool's signing certificate."""
    confirmed_by = (
        await db.get(User, row.linking_confirmed_by_user_id)
        if row.linking_confirmed_by_user_id is not None
        else None
    )
    signs = wants_signed_requests(row.metadata_xml)
    return connection_out(
        row,
        await repository.verified_domain_names(db, row.account_id),
        now,
        confirmed_by=None
        if confirmed_by is None
        else f"{confirmed_by.first_name} {confirmed_by.last_name} <{confirmed_by.email}>".strip(),
        signing_certificate=await _signing_certificate(cognito) if signs else None,
    )


def connection_out(
    row: SamlConnection,
    verified_domains: Iterable[str],
    now: datetime | None = None,
    *,
    confirmed_by: str | None = None,
    signing_certificate: str | None = None,
) -> SamlConnectionOut:
    """A connection as the console shows it, its account holding ``verified_domains``
    (``confirmed_by``: the confirming Owner as 'Name <email>'; ``signing_certificate``: the
    pool's, PEM, when its requests are signed)."""
    return SamlConnectionOut(
        provider_name=row.provider_name,
        metadata_url=row.metadata_url,
        idp_entity_id=row.idp_entity_id,
        sso_url=row.sso_url,
        certificate_expires_at=row.certificate_expires_at,
        certificate_expires_soon=expires_soon(row, now or datetime.now(UTC)),
        domains=sorted(row.idp_identifiers),
        identifier_notices=identifiers_of(verified_domains).notices,
        metadata_checked_at=row.metadata_checked_at,
        metadata_error=row.metadata_error,
        identifiers_error=row.identifiers_error,
        connected_at=row.created_at,
        last_test=None if row.last_test_at is None else _test(row, row.last_test_at),
        linking_confirmed_at=row.linking_confirmed_at,
        linking_confirmed_by=confirmed_by,
        signs_requests=wants_signed_requests(row.metadata_xml),
        signing_certificate=signing_certificate,
    )


async def saml_settings(
    *, db: AsyncSession, cognito: CognitoClient, caller: Caller, settings: Settings
) -> SamlSettingsResponse:
    """The service provider's values and the caller's account's connection (null before
    set-up)."""
    row = await repository.connection_of(db, caller.account_id)
    return SamlSettingsResponse(
        service_provider=service_provider(settings),
        connection=None if row is None else await _view(db, cognito, row),
    )


def identity_provider_of(row: SamlConnection) -> IdentityProvider:
    """The connection as the pool's identity provider (CreateIdentityProvider's settings),
    its requests signed when its metadata asks for it."""
    return IdentityProvider(
        name=row.provider_name,
        metadata=row.metadata_xml,
        identifiers=tuple(sorted(row.idp_identifiers)),
        attribute_mapping=dict(ATTRIBUTES),
        request_signing_algorithm=REQUEST_SIGNING_ALGORITHM
        if wants_signed_requests(row.metadata_xml)
        else None,
    )


async def _quietly(step: Callable[[], Awaitable[Any]], what: str, **context: object) -> None:
    """Run a compensating step; log instead of raising (``undo_on_rollback`` steps must not)."""
    try:
        await step()
    except (CognitoError, CognitoUnavailable, TimeoutError, SsoChangeBusy):
        log.exception("saml_undo_failed", step=what, **context)


# ---------------------------------------------------------------------------------------------
# The app client's list of identity providers


async def _change_app_client(
    db: AsyncSession, cognito: CognitoClient, *, add: str | None = None, drop: str | None = None
) -> None:
    """Add or drop one provider of the app client's ``SupportedIdentityProviders``: read,
    change and write the whole client under :data:`APP_CLIENT_LOCK`, held until ``db``'s
    transaction ends, waited for at most :data:`APP_CLIENT_LOCK_TIMEOUT_MS`.

    Raises: CognitoError, CognitoUnavailable, SsoChangeBusy (the lock was not had in time;
    ``db``'s transaction is aborted).
    """
    if not await repository.lock_app_client(
        db, APP_CLIENT_LOCK, timeout_ms=APP_CLIENT_LOCK_TIMEOUT_MS
    ):
        raise SsoChangeBusy()
    client = await cognito.describe_app_client()
    providers = [p for p in client.get("SupportedIdentityProviders") or [] if p != drop]
    if add is not None and add not in providers:
        providers.append(add)
    if providers == (client.get("SupportedIdentityProviders") or []):
        return
    client["SupportedIdentityProviders"] = providers
    await cognito.update_app_client(client)


def _undo_app_client(
    db: AsyncSession, cognito: CognitoClient, *, add: str | None = None, drop: str | None = None
) -> None:
    """On a rollback, change the app client's list back in a transaction of its own (under
    the same lock: the request's transaction, and its lock, are gone by then)."""
    engine = db.bind

    async def undo() -> None:
        async with AsyncSession(engine) as own, own.begin():
            await _quietly(
                lambda: _change_app_client(own, cognito, add=add, drop=drop),
                "app_client",
                add=add,
                drop=drop,
            )

    undo_on_rollback(db, undo)


# ---------------------------------------------------------------------------------------------
# Identifiers (the verified domains Cognito routes to the connection)


async def sync_identifiers(
    *, db: AsyncSession, cognito: CognitoClient, row: SamlConnection
) -> None:
    """Make the connection's ``IdpIdentifiers`` its account's verified domains within
    Cognito's limits (:func:`identifiers_of`), after any other account's connection that
    Cognito still routes one of them to gives it up (a verified domain belongs to one
    account; identifiers are unique in the pool). Each Cognito change is undone if the
    request's transaction does not commit.

    Raises: CognitoError, CognitoUnavailable.
    """
    domains = identifiers_of(await repository.verified_domain_names(db, row.account_id)).sent
    for other in await repository.connections_holding(db, domains, other_than=row.account_id):
        await _set_identifiers(
            db,
            cognito,
            other,
            identifiers_of(await repository.verified_domain_names(db, other.account_id)).sent,
        )
    await _set_identifiers(db, cognito, row, domains)


async def sync_account_identifiers(
    *, db: AsyncSession, cognito: CognitoClient, account_id: uuid.UUID
) -> None:
    """After the account's verified domains changed (one verified, lost, taken over or
    removed), bring its SAML connection's ``IdpIdentifiers`` in step at once, so 'Sign in
    with SSO' routes exactly those domains; nothing when it has no connection.

    Raises: ProviderRefused, VendorUnavailable (Cognito; the request then changes nothing).
    """
    row = await repository.connection_of(db, account_id, for_update=True)
    if row is not None:
        async with cognito_errors():
            await sync_identifiers(db=db, cognito=cognito, row=row)


async def _set_identifiers(
    db: AsyncSession, cognito: CognitoClient, row: SamlConnection, domains: list[str]
) -> None:
    """Send ``domains`` as ``row``'s identifiers unless Cognito holds them already; either
    way Cognito is in step, so an earlier refusal recorded on ``row`` is cleared."""
    row.identifiers_error = None
    row.identifiers_failed_at = None
    if sorted(row.idp_identifiers) == domains:
        return
    before = identity_provider_of(row)
    row.idp_identifiers = domains
    await cognito.update_identity_provider(identity_provider_of(row))
    undo_on_rollback(
        db,
        lambda: _quietly(
            lambda: cognito.update_identity_provider(before), "identifiers", name=before.name
        ),
    )
    await db.flush()


# ---------------------------------------------------------------------------------------------
# Set-up


async def _metadata_from_url(fetcher: MetadataFetcher, url: str) -> IdpMetadata:
    """Fetch and check the metadata at ``url``. Raises SamlMetadataUnreachable,
    InvalidSamlMetadata."""
    try:
        document = await fetcher.fetch(url)
    except (MetadataUrlRefused, MetadataUnreachable) as exc:
        raise SamlMetadataUnreachable(exc.message) from exc
    return parse_metadata(document)


def _audited(row: SamlConnection) -> dict[str, Any]:
    """What the audit log records of a connection's changes."""
    return {
        "metadataUrl": row.metadata_url,
        "idpEntityId": row.idp_entity_id,
        "certificateExpiresAt": row.certificate_expires_at.isoformat(),
    }


def _target(account: Account) -> Target:
    return Target("saml_connection", account.id, account.name)


async def _tell_owners(
    db: AsyncSession, audit: AuditTrail, account: Account, kind: str, subject: str, what: str
) -> None:
    """Every Owner's notice of a change of the connection
    (api/identity/membership/owner_notices.py), in
    ``db``'s transaction, naming who made it as the audit log does."""
    await notify_owners(
        db, account_id=account.id, kind=kind, subject=subject, what=what, actor=audit.actor.label
    )


async def save_connection(
    *,
    db: AsyncSession,
    reads: AsyncEngine,
    caller: Caller,
    audit: AuditTrail,
    cognito: CognitoClient,
    fetcher: MetadataFetcher,
    metadata_url: str | None,
    metadata_xml: str | None,
) -> SamlConnectionOut:
    """Create or update the caller's account's SAML connection from the identity provider's
    metadata (by ``metadata_url``, fetched now and every day, or ``metadata_xml``, one of the
    two), in our database and in Cognito (CreateIdentityProvider or UpdateIdentityProvider,
    then the app client's ``SupportedIdentityProviders``).

    The caller is an Owner (the route needs ``identity_providers:write``): the connection is
    theirs, so it may link first sign-ins to existing users (``linking_confirmed_*``; a
    replacement by an Owner confirms a legacy connection too). Every Owner is told by email.

    Raises:
        VerifiedDomainRequired: the account has no verified domain (whose people it would
            sign in).
        SamlMetadataUnreachable: the URL is not one the console fetches, or the fetch failed.
        InvalidSamlMetadata: the metadata is not usable (the message names the problem), or
            is Microsoft Entra ID's tenant-independent metadata.
        ProviderRefused, VendorUnavailable: Cognito refused or could not be reached (nothing
            is kept).
        SsoChangeBusy: another change held the app client's lock too long (nothing is kept).
    """
    async with reads.connect() as connection:
        if not await repository.has_verified_domain(connection, caller.account_id):
            raise VerifiedDomainRequired(NO_DOMAIN)
    if metadata_url is not None:
        metadata = await _metadata_from_url(fetcher, metadata_url)
    else:
        metadata = parse_metadata(metadata_xml or "")
    refuse_tenant_independent(metadata.entity_id)
    account = await db.get_one(Account, caller.account_id, with_for_update=True)
    if not await repository.verified_domain_names(db, account.id):
        raise VerifiedDomainRequired(NO_DOMAIN)  # removed or lost during the fetch
    now = datetime.now(UTC)
    row = await repository.connection_of(db, account.id, for_update=True)
    created = row is None
    before = {} if row is None else _audited(row)
    if row is None:
        row = SamlConnection(
            account_id=account.id,
            provider_name=provider_name_of(account.id),
            idp_identifiers=[],
            created_at=now,
            created_by_user_id=caller.user_id,
        )
        db.add(row)
    else:
        previous = identity_provider_of(row)
        undo_on_rollback(
            db,
            lambda: _quietly(
                lambda: cognito.update_identity_provider(previous), "update", name=previous.name
            ),
        )
    row.metadata_url = metadata_url
    row.metadata_xml = metadata.document
    row.idp_entity_id = metadata.entity_id
    row.sso_url = metadata.sso_url
    row.certificate_expires_at = metadata.certificate_expires_at
    row.metadata_checked_at = now
    row.metadata_error = None
    if caller.role is Role.OWNER:
        row.linking_confirmed_at = now
        row.linking_confirmed_by_user_id = caller.user_id
    await db.flush()
    async with cognito_errors():
        if created:
            # Created with no identifier; sync_identifiers gives it the domains once any other
            # connection gave them up.
            await cognito.create_identity_provider(identity_provider_of(row))
            name = row.provider_name
            undo_on_rollback(
                db, lambda: _quietly(lambda: _delete_provider(cognito, name), "create", name=name)
            )
            await _change_app_client(db, cognito, add=name)
            _undo_app_client(db, cognito, drop=name)
        else:
            await cognito.update_identity_provider(identity_provider_of(row))
        await sync_identifiers(db=db, cognito=cognito, row=row)
    changes = {
        key: (before.get(key), value)
        for key, value in _audited(row).items()
        if before.get(key) != value
    }
    await audit.record(
        AuditAction.SAML_CONNECTED if created else AuditAction.SAML_UPDATED,
        _target(account),
        changes,
    )
    domains_named = ", ".join(sorted(row.idp_identifiers)) or "its verified domains"
    if created:
        await _tell_owners(
            db,
            audit,
            account,
            "saml-connected",
            "A SAML identity provider was connected",
            f"The identity provider {row.idp_entity_id} was connected to {account.name}: "
            f"people at {domains_named} now sign in through it, and it can sign in its "
            "existing users.",
        )
    else:
        await _tell_owners(
            db,
            audit,
            account,
            "saml-replaced",
            "The SAML identity provider was replaced",
            f"The SAML connection of {account.name} was saved again with the metadata of "
            f"{row.idp_entity_id}: people at {domains_named} sign in through that identity "
            "provider from now on.",
        )
    return await _view(db, cognito, row, now)


async def _delete_provider(cognito: CognitoClient, name: str) -> None:
    try:
        await cognito.delete_identity_provider(name)
    except ResourceNotFoundError:
        return


async def remove_connection(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, cognito: CognitoClient
) -> None:
    """Remove the caller's account's SAML connection: from the app client's list, then the
    identity provider itself. A requirement of it ends (the account falls back to email and
    password), and the people of the connection become email-and-password users: they set a
    password with Forgot password (README "SAML single sign-on"); their open sessions end.

    Raises:
        NotFound: the account has no connection.
        ProviderRefused, VendorUnavailable: Cognito refused or could not be reached (nothing
            is kept).
    """
    account = await db.get_one(Account, caller.account_id, with_for_update=True)
    row = await repository.connection_of(db, account.id, for_update=True)
    if row is None:
        raise NotFound("No SAML connection is set up")
    changes: dict[str, tuple[Any, Any]] = {"idpEntityId": (row.idp_entity_id, None)}
    if account.require_saml_sso:
        account.require_saml_sso = False
        changes["requireSamlSSO"] = (True, False)
    # Unbound from their SAML identities, whose tokens then open no account and are told
    # why (``retired_identity_sub``); the next password sign-in binds them to their pool
    # user again.
    for user in await repository.users_signing_in_with(db, account.id, AuthType.SAML_SSO):
        user.auth_type = AuthType.EMAIL
        user.identity_id = user.email.lower()
        user.retired_identity_sub = user.identity_sub
        user.identity_sub = None
    provider = identity_provider_of(row)
    provider_entity = row.idp_entity_id
    await db.delete(row)
    await db.flush()
    async with cognito_errors():
        await _change_app_client(db, cognito, drop=provider.name)
        _undo_app_client(db, cognito, add=provider.name)
        await _delete_provider(cognito, provider.name)
    undo_on_rollback(
        db,
        lambda: _quietly(
            lambda: cognito.create_identity_provider(provider), "remove", name=provider.name
        ),
    )
    await audit.record(AuditAction.SAML_REMOVED, _target(account), changes)
    await _tell_owners(
        db,
        audit,
        account,
        "saml-removed",
        "The SAML identity provider was removed",
        f"The identity provider {provider_entity} no longer signs anyone in to {account.name}: "
        "its people sign in with their email and password again.",
    )


async def confirm_linking(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, cognito: CognitoClient
) -> SamlConnectionOut:
    """Let the caller's account's connection link first sign-ins to existing users of the
    account (README "Security model", "Who someone is"): the caller, an Owner (the route needs
    ``identity_providers:write``), vouches for the identity provider an Admin connected before
    connecting was an Owner's. Audited (``sso.saml_linking_confirmed``); every Owner is told.
    Confirming a confirmed connection changes nothing.

    Raises: NotFound (the account has no connection).
    """
    account = await db.get_one(Account, caller.account_id, with_for_update=True)
    row = await repository.connection_of(db, account.id, for_update=True)
    if row is None:
        raise NotFound("No SAML connection is set up")
    if row.linking_confirmed_at is None:
        row.linking_confirmed_at = datetime.now(UTC)
        row.linking_confirmed_by_user_id = caller.user_id
        await db.flush()
        await audit.record(
            AuditAction.SAML_LINKING_CONFIRMED,
            _target(account),
            {"linkingConfirmed": (False, True), "idpEntityId": (None, row.idp_entity_id)},
        )
        await _tell_owners(
            db,
            audit,
            account,
            "saml-linking-confirmed",
            "The SAML identity provider may now sign in existing users",
            f"The identity provider {row.idp_entity_id} of {account.name} was confirmed: "
            "the first time an existing user (an Owner included) signs in through it, they "
            "are linked to it, so whoever runs that identity provider can sign in as them.",
        )
    return await _view(db, cognito, row)


# ---------------------------------------------------------------------------------------------
# Requiring it


async def set_saml_requirement(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, required: bool
) -> Account:
    """Require (or stop requiring) sign-in through the account's SAML connection; requiring
    it stops requiring Google, and ends the sessions of every user who does not sign in
    through the connection (README "SAML single sign-on").

    Requiring a connection whose linking no Owner confirmed confirms it (its existing users
    must be able to sign in through it). Returns the account after the change. A change tells
    every Owner by email.

    Raises:
        SamlConnectionRequired: requiring it before the connection is set up.
        SamlSsoAuthTypeRequired: requiring it as a user who has not signed in through it.
    """
    account = await db.get_one(Account, caller.account_id, with_for_update=True)
    changes: dict[str, tuple[Any, Any]] = {}
    if required:
        row = await repository.connection_of(db, account.id, for_update=True)
        if row is None:
            raise SamlConnectionRequired()
        if caller.auth_type is not AuthType.SAML_SSO:
            raise SamlSsoAuthTypeRequired()
        if row.linking_confirmed_at is None:
            # Requiring it makes everyone sign in through it: an Owner who does vouches for
            # it, or the account's existing users could not sign in at all.
            row.linking_confirmed_at = datetime.now(UTC)
            row.linking_confirmed_by_user_id = caller.user_id
            changes["linkingConfirmed"] = (False, True)
    if account.require_saml_sso != required:
        changes["requireSamlSSO"] = (account.require_saml_sso, required)
    if required and account.require_google_sso:
        changes["requireGoogleSSO"] = (True, False)
        account.require_google_sso = False
    if changes:
        await audit.record(
            AuditAction.SSO_CHANGED, Target("account", account.id, account.name), changes
        )
    if "requireSamlSSO" in changes:
        await _tell_owners(
            db,
            audit,
            account,
            "saml-required" if required else "saml-not-required",
            "SAML single sign-on is now required"
            if required
            else "SAML single sign-on is no longer required",
            f"The users of {account.name} now sign in through its SAML identity provider only: "
            "password, Google and GitHub sign-in stop for them."
            if required
            else f"The users of {account.name} may sign in with their email and password, "
            "Google or GitHub again.",
        )
    if required and not account.require_saml_sso:
        # As for Google: the users it excludes lose their sessions for good.
        await end_sessions(db, User.account_id == account.id, User.auth_type != AuthType.SAML_SSO)
    account.require_saml_sso = required
    await db.flush()
    return account


# ---------------------------------------------------------------------------------------------
# Signing people in


UNCONFIRMED_LINK = (
    "{email} already has a user in {account}, and this single sign-on connection has not been "
    "confirmed by an Owner of the account, so it signs in only people who are new to the "
    "account. Ask an Owner to confirm it under User Management, Security."
)


class SamlSignInRefused(Exception):
    """A SAML identity that the console does not let in; ``message`` says why, for the
    person signing in."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def _new_member(
    db: AsyncSession, account_id: uuid.UUID, identity: ProvenIdentity, sub: str, address: str
) -> User | None:
    """A Member of ``account_id`` for a SAML identity's first sign-in (people who arrive
    through the connection are Members until an Owner changes it), with the names the identity
    provider sent, added through the membership home and audited as their own join; None when
    a user of that email was committed meanwhile (a concurrent first sign-in of the same
    person: the unique email refuses the second insert, which a savepoint undoes so the
    transaction goes on)."""
    user = User(
        id=new_id(),  # known before the row is written: the audit log names its own join
        account_id=account_id,
        identity_id=identity.username,
        identity_sub=sub,
        first_name=identity.first_name[:100],
        last_name=identity.last_name[:100],
        email=identity.email,
        auth_type=AuthType.SAML_SSO,
        role=Role.MEMBER,
        signed_in_at=func.now(),
    )
    name = f"{user.first_name} {user.last_name}".strip()
    try:
        async with db.begin_nested():
            await membership.add(
                db,
                acting=membership.joining(f"{name} <{user.email}>"),
                user=user,
                audit=AuditTrail(db, account_id, Actor(user.id, name, user.email, address)),
                action=AuditAction.USER_JOINED,
                changes={"role": (None, user.role.value), "via": (None, "SAML SSO")},
            )
    except EmailInUse:
        return None
    return user


@dataclass(frozen=True, slots=True)
class Malformed:
    """What a SAML identity provider asserted that the console cannot take: ``what`` it sent
    (a phrase: "a first name longer than 100 characters") and what the person's
    administrator should do about it (``advice``, a phrase)."""

    what: str
    advice: str = "correct it at the identity provider"


def malformed(identity: ProvenIdentity) -> Malformed | None:
    """The email or a name a SAML identity provider asserted that every other way into the
    console would refuse (``api.kernel.emails.is_valid_email``; names of at most
    ``NAME_MAX_LENGTH`` characters without control characters, as User Management takes
    them), or None."""
    email = identity.email
    if email and (len(email) > EMAIL_MAX_LENGTH or not is_valid_email(email)):
        return Malformed(
            f"'{email}', which is not a valid email address", "send your work email address"
        )
    for label, name in (("first", identity.first_name), ("last", identity.last_name)):
        if len(name) > NAME_MAX_LENGTH:
            return Malformed(f"a {label} name longer than {NAME_MAX_LENGTH} characters")
        if CONTROL_CHARACTERS.search(name):
            return Malformed(f"a {label} name with control characters (such as a line break)")
    return None


async def provision(
    *, db: AsyncSession, identity: ProvenIdentity, sub: str, client_address: str
) -> SigningIn:
    """The user of a SAML identity's first sign-in (Cognito asserts the identity and its
    connection, api/principal/identity.py): the existing user with its email in the connection's
    account is linked to it (their sign-in type becomes SAML SSO), or a Member is created
    with the names the identity provider sent. Either way in ``db``'s transaction, audited.

    An existing user is linked only through a connection an Owner made or confirmed
    (``linking_confirmed_at``; README "Security model", "Who someone is"): through any other,
    whoever runs the identity provider could sign in as anyone of the account.

    Returns who signed in.

    Raises:
        SamlSignInRefused: the connection is gone; the email or a name is malformed
            (:func:`malformed`); the email is missing or not at one of the account's
            verified domains; the email belongs to a user of another account; it belongs to a
            user of the account and the connection's linking is not confirmed.
        RemovedFromAccount: the account removed this person.
    """
    row = (
        await repository.connection_named(db, identity.provider_name)
        if identity.provider_name
        else None
    )
    if row is None:
        raise SamlSignInRefused("This single sign-on connection no longer exists.")
    account = await db.get_one(Account, row.account_id)
    if (refused := malformed(identity)) is not None:
        raise SamlSignInRefused(
            f"Your identity provider sent {refused.what}. Ask your administrator to "
            f"{refused.advice}."
        )
    email = identity.email
    domains = await repository.verified_domain_names(db, account.id)
    if not email or email_domain(email) not in domains:
        raise SamlSignInRefused(
            f"Your identity provider sent {email or 'no email address'}, which is not at a "
            f"verified domain of {account.name}. Ask your administrator to send your work "
            "email address."
        )
    if await was_removed(
        db, account.id, email, provider=AuthType.SAML_SSO.value, provider_subject=None
    ):
        raise RemovedFromAccount(removed_message(account.name))
    user = await repository.user_with_email(db, email)
    if user is None:
        created = await _new_member(db, account.id, identity, sub, client_address)
        if created is not None:
            return SigningIn(created.id, account.id, _name(created), created.email)
        # Another first sign-in of theirs (another tab) made the user meanwhile.
        user = await repository.user_with_email(db, email)
        if user is None:  # ...and it is gone again already
            raise SamlSignInRefused("Signing you in did not complete. Please try again.")
    if user.account_id != account.id:
        raise SamlSignInRefused(
            f"{email} already belongs to another account of the console. Ask your administrator."
        )
    if user.identity_id == identity.username and user.auth_type is AuthType.SAML_SSO:
        user.identity_sub = sub  # linked already, by that other sign-in: nothing to record
        await db.flush()
    elif row.linking_confirmed_at is None:
        raise SamlSignInRefused(UNCONFIRMED_LINK.format(email=email, account=account.name))
    else:
        actor = Actor(user.id, _name(user), user.email, client_address)
        await membership.link_sign_in(
            db,
            audit=AuditTrail(db, account.id, actor),
            user=user,
            identity_id=identity.username,
            identity_sub=sub,
            auth_type=AuthType.SAML_SSO,
        )
    return SigningIn(user.id, account.id, _name(user), user.email)


def _name(user: User) -> str:
    return f"{user.first_name} {user.last_name}".strip()


@dataclass(frozen=True, slots=True)
class SsoRoute:
    """How the hosted UI is told which identity provider signs a domain's people in: by one
    of its identifiers (``idp_identifier``, the domain itself) or, for a verified domain that
    Cognito cannot hold as an identifier (:class:`Identifiers`), by the connection's name
    (``identity_provider``). One of the two is set."""

    idp_identifier: str = ""
    identity_provider: str = ""


async def connection_for_domain(db: AsyncSession, domain: str) -> SsoRoute | None:
    """How 'Sign in with SSO' reaches the connection of the account that holds ``domain``
    verified: by the domain when Cognito routes it (one of the connection's identifiers), by
    the connection's name when the domain cannot be an identifier; None when no account with
    a connection holds it, or when Cognito does not route it yet (identifiers out of step)."""
    row = await repository.connection_of_verified_domain(db, domain)
    if row is None:
        return None
    if domain in row.idp_identifiers:
        return SsoRoute(idp_identifier=domain)
    verified = await repository.verified_domain_names(db, row.account_id)
    if domain not in identifiers_of(verified).sent:
        return SsoRoute(identity_provider=row.provider_name)
    return None


# ---------------------------------------------------------------------------------------------
# Test sign-in


async def provider_name_for_test(*, db: AsyncSession, caller: Caller) -> str:
    """The name of the caller's account's identity provider, to test it.

    Raises: SamlConnectionRequired.
    """
    row = await repository.connection_of(db, caller.account_id)
    if row is None:
        raise SamlConnectionRequired()
    return row.provider_name


def test_problem(identity: ProvenIdentity, row: SamlConnection, domains: list[str]) -> str | None:
    """What is wrong with the identity a test sign-in produced, or None: it must come
    through this connection, with an email at one of the account's verified domains and both
    names (in the attributes :data:`ATTRIBUTES` names)."""
    if identity.auth_type is not AuthType.SAML_SSO or identity.provider_name != row.provider_name:
        return "The sign-in did not come through this account's SAML connection."
    if not identity.email:
        return (
            "The identity provider sent no email address: send the user's email in the "
            f"'{ATTRIBUTES['email']}' attribute."
        )
    if (refused := malformed(identity)) is not None:
        return f"The identity provider sent {refused.what}: correct it at the identity provider."
    if email_domain(identity.email) not in domains:
        return (
            f"The identity provider sent {identity.email}, which is not at a verified domain "
            f"({', '.join(domains) or 'none'}): send the user's work email address."
        )
    if not identity.first_name or not identity.last_name:
        return (
            "The identity provider sent no first or last name: send them in the "
            f"'{ATTRIBUTES['given_name']}' and '{ATTRIBUTES['family_name']}' attributes."
        )
    return None


async def record_test(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, identity: ProvenIdentity
) -> SamlTest:
    """Record what a test sign-in produced on the caller's account's connection (and in the
    audit log) and return it.

    Raises: SamlConnectionRequired (the connection was removed meanwhile).
    """
    row = await repository.connection_of(db, caller.account_id, for_update=True)
    if row is None:
        raise SamlConnectionRequired()
    domains = await repository.verified_domain_names(db, caller.account_id)
    now = datetime.now(UTC)
    row.last_test_at = now
    row.last_test_email = identity.email or None
    row.last_test_first_name = identity.first_name[:100] or None
    row.last_test_last_name = identity.last_name[:100] or None
    row.last_test_problem = test_problem(identity, row, domains)
    await db.flush()
    await audit.record(
        AuditAction.SAML_TESTED,
        Target("saml_connection", caller.account_id, caller.account_name),
        {"result": (None, row.last_test_problem or f"signed in as {identity.email}")},
    )
    return _test(row, now)
