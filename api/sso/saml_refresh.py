"""The daily upkeep of SAML connections (README "SAML single sign-on"), run by the job worker as
a periodic task (``saml_upkeep``, api/jobs/periodic.py).

- **Metadata by URL is fetched again** once a day (:data:`REFRESH_INTERVAL`) after it was last
  fetched: identity providers roll their signing certificates, and a connection whose metadata
  is a day old follows them. A new document is checked as at set-up and sent to Cognito
  (UpdateIdentityProvider); one that fails (no answer, a refused document) changes nothing but
  ``metadata_error``, which User Management shows, and is tried again at the next pass.
- **Identifiers follow the verified domains**: a request that verifies, takes over or removes
  a domain tells Cognito at once (``saml.sync_account_identifiers``); a domain the daily
  re-check found Lost is dropped from the connection's identifiers here, within the hour.
- **A signing certificate expiring within 30 days** gets one email to the account's Owners and
  Admins per certificate (``expiry_notice_for``), deferred to the job engine in the
  transaction that records it; User Management warns meanwhile.

Each connection is claimed with ``SELECT ... FOR UPDATE SKIP LOCKED`` in a transaction of its
own, so any number of workers share a pass and none does a connection twice.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from api.adapters.cognito import CognitoClient, CognitoError, CognitoUnavailable
from api.adapters.metadata_url import MetadataFetcher, MetadataUnreachable, MetadataUrlRefused
from api.config import Settings
from api.deferred import Email, defer_emails, recipient_tag
from api.models import SamlConnection
from api.sso import repository
from api.sso.errors import InvalidSamlMetadata
from api.sso.saml import EXPIRY_WARNING, identity_provider_of, sync_identifiers
from api.sso.saml_metadata import MAX_METADATA_BYTES, parse_metadata

log = structlog.get_logger(__name__)

REFRESH_INTERVAL = timedelta(days=1)


@dataclass
class RefreshReport:
    """What one pass did: metadata documents changed, unchanged and not fetched (the error is
    on the connection), expiry emails deferred (one per recipient), and connections whose
    identifiers were brought in step with their account's verified domains."""

    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    notices: int = 0
    resynced: int = 0


async def _refresh_one(
    cognito: CognitoClient, fetcher: MetadataFetcher, row: SamlConnection
) -> bool | None:
    """Fetch ``row``'s metadata again; True when it changed (Cognito has the new one), False
    when it did not, None when it could not be used (``metadata_error`` says why).

    Identifiers are not touched here: :func:`upkeep` runs :func:`resync_identifiers` next, so a
    Cognito refusal of identifiers does not roll back a good metadata refresh."""
    now = datetime.now(UTC)
    row.metadata_checked_at = now
    try:
        metadata = parse_metadata(await fetcher.fetch(row.metadata_url or ""), now=now)
    except (MetadataUrlRefused, MetadataUnreachable, InvalidSamlMetadata) as exc:
        row.metadata_error = exc.message
        log.warning("saml_metadata_refresh_failed", provider=row.provider_name, error=exc.message)
        return None
    row.metadata_error = None
    changed = metadata.document != row.metadata_xml
    if changed:
        row.metadata_xml = metadata.document
        row.idp_entity_id = metadata.entity_id
        row.sso_url = metadata.sso_url
        row.certificate_expires_at = metadata.certificate_expires_at
        await cognito.update_identity_provider(identity_provider_of(row))
    return changed


async def refresh_due(
    sessionmaker: async_sessionmaker[AsyncSession],
    cognito: CognitoClient,
    fetcher: MetadataFetcher,
    *,
    interval: timedelta = REFRESH_INTERVAL,
) -> RefreshReport:
    """Fetch again the metadata of every connection set up by URL and last fetched more than
    ``interval`` ago, one transaction each (see the module). A Cognito failure leaves that
    connection as it was (its transaction rolls back) and is retried at the next pass.

    Returns the counts. Raises only what the database raises.
    """
    report = RefreshReport()
    taken: set[uuid.UUID] = set()
    while True:
        checked_before = datetime.now(UTC) - interval
        async with sessionmaker() as db:
            async with db.begin():
                row = await repository.next_connection_due(db, checked_before, taken)
                if row is None:
                    return report
                taken.add(row.id)
                name = row.provider_name  # the row expires if its savepoint rolls back
                try:
                    async with db.begin_nested():
                        changed = await _refresh_one(cognito, fetcher, row)
                except (CognitoError, CognitoUnavailable) as exc:
                    log.warning("saml_cognito_update_failed", provider=name, error=str(exc))
                    report.failed += 1
                    continue
            if changed is None:
                report.failed += 1
            elif changed:
                report.changed += 1
            else:
                report.unchanged += 1


@dataclass(frozen=True, slots=True)
class ExpiryNotice:
    """The email about a connection's signing certificate that expires at ``expires_at``."""

    connection_id: uuid.UUID
    account_name: str
    idp_entity_id: str
    expires_at: datetime

    @property
    def subject(self) -> str:
        """The subject line."""
        return f"Your SAML signing certificate expires on {self.expires_at:%Y-%m-%d}"

    @property
    def text(self) -> str:
        """The plain-text body."""
        return (
            "Hello,\n\n"
            f"The signing certificate of the SAML identity provider of {self.account_name} "
            f"({self.idp_entity_id}) expires on {self.expires_at:%Y-%m-%d %H:%M} UTC. After "
            "that, nobody can sign in to the console through it.\n\n"
            "Before then, add a new signing certificate at your identity provider (Okta, "
            "Microsoft Entra ID, Google Workspace...). If the console reads its metadata from "
            "a URL, the new certificate is picked up within a day; if you uploaded the "
            "metadata file, upload the new one under User Management > Security > SAML single "
            "sign-on > Update metadata.\n\n"
            f"Every Owner and Admin of {self.account_name} receives this message.\n"
        )

    def message_key(self, to: str) -> str:
        """``saml-certificate.<connection>.<expiry, epoch ms>.<recipient tag>``: one email per
        certificate and recipient."""
        expires = int(self.expires_at.timestamp() * 1000)
        return f"saml-certificate.{self.connection_id}.{expires}.{recipient_tag(to)}"


async def notify_expiring(
    sessionmaker: async_sessionmaker[AsyncSession], *, now: datetime | None = None
) -> int:
    """Defer the expiry email of every connection whose signing certificate expires within
    30 days and has not had it, to the account's Owners and Admins, in the transaction that
    records it; returns the emails deferred."""
    moment = now or datetime.now(UTC)
    deferred = 0
    taken: set[uuid.UUID] = set()
    while True:
        async with sessionmaker() as db, db.begin():
            row = await repository.next_expiring_unnoticed(db, moment + EXPIRY_WARNING, taken)
            if row is None:
                return deferred
            taken.add(row.id)
            notice = ExpiryNotice(
                connection_id=row.id,
                account_name=await repository.account_name(db, row.account_id),
                idp_entity_id=row.idp_entity_id,
                expires_at=row.certificate_expires_at,
            )
            recipients = await repository.manager_emails(db, row.account_id)
            await defer_emails(
                db,
                [
                    Email(
                        to=to,
                        subject=notice.subject,
                        text=notice.text,
                        message_key=notice.message_key(to),
                    )
                    for to in recipients
                ],
            )
            row.expiry_notice_for = row.certificate_expires_at
            deferred += len(recipients)


async def resync_identifiers(
    sessionmaker: async_sessionmaker[AsyncSession], cognito: CognitoClient
) -> int:
    """Bring in step the identifiers of every connection whose account's verified domains
    changed without a request that could tell Cognito (a domain the daily re-check found
    Lost), one transaction each; returns how many changed. A Cognito failure leaves that
    connection for the next pass."""
    changed = 0
    taken: set[uuid.UUID] = set()
    while True:
        async with sessionmaker() as db, db.begin():
            row = await repository.next_connection_out_of_step(db, taken)
            if row is None:
                return changed
            taken.add(row.id)
            name = row.provider_name
            try:
                async with db.begin_nested():
                    await sync_identifiers(db=db, cognito=cognito, row=row)
            except (CognitoError, CognitoUnavailable) as exc:
                log.warning("saml_cognito_update_failed", provider=name, error=str(exc))
                continue
            changed += 1


async def upkeep(
    sessionmaker: async_sessionmaker[AsyncSession], cognito: CognitoClient, settings: Settings
) -> RefreshReport:
    """One pass (the periodic task's work, api/jobs/periodic.py): the metadata due a refresh,
    fetched within the limits of ``settings``, the identifiers out of step with their
    account's verified domains, then the expiry emails due."""
    fetcher = MetadataFetcher.from_settings(settings, max_bytes=MAX_METADATA_BYTES)
    report = await refresh_due(sessionmaker, cognito, fetcher)
    report.resynced = await resync_identifiers(sessionmaker, cognito)
    report.notices = await notify_expiring(sessionmaker)
    return report
