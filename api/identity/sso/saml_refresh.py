"""The daily upkeep of SAML connections (README "SAML single sign-on"), run by the job worker as
a periodic task (``saml_upkeep``, api/app/jobs/periodic.py).

- **Metadata by URL is fetched again** once a day (:data:`REFRESH_INTERVAL`) after it was last
  fetched: identity providers roll their signing certificates, and a connection whose metadata
  is a day old follows them. A new document is checked as at set-up and sent to Cognito
  (UpdateIdentityProvider); one that fails (no answer, a refused document, Cognito's refusal,
  anything unforeseen) changes nothing but ``metadata_error``, which User Management shows,
  and is fetched again a day later (an hour later when Cognito could not be reached). Each
  connection is claimed in a short transaction (its ``metadata_checked_at`` moves to now, so
  no other worker takes it), fetched with no database connection or lock held, then updated
  under its row lock; one tenant's server or document cannot stop the pass for the others.
- **Identifiers follow the verified domains**: a request that verifies, takes over or removes
  a domain tells Cognito at once (``saml.sync_account_identifiers``); a domain the daily
  re-check found Lost is dropped from the connection's identifiers here, within the hour.
  Cognito's refusal is recorded on the connection (``identifiers_error``) and tried again a
  day later, not at every pass.
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
from api.identity.sso import repository
from api.identity.sso.errors import InvalidSamlMetadata
from api.identity.sso.saml import (
    EXPIRY_WARNING,
    IDENTIFIER_MAX_LENGTH,
    IDENTIFIERS_MAX,
    identity_provider_of,
    sync_identifiers,
)
from api.identity.sso.saml_metadata import MAX_METADATA_BYTES, IdpMetadata, parse_metadata
from api.kernel.config import Settings
from api.kernel.deferred import Email, defer_emails, recipient_tag

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


UNFORESEEN = (
    "The console could not check this metadata (an unexpected error, logged for us): fix it at "
    "the identity provider, or upload the metadata file under Update metadata."
)
"""``metadata_error`` after a failure no rule foresaw (the exception goes to the log)."""


@dataclass(frozen=True, slots=True)
class _Due:
    """A connection claimed for a refresh: which, where its metadata is fetched from, when it
    was checked before the claim, and the claim's time (its new ``metadata_checked_at``)."""

    id: uuid.UUID
    provider_name: str
    metadata_url: str
    checked_before: datetime
    claimed_at: datetime


async def _claim(
    sessionmaker: async_sessionmaker[AsyncSession], checked_before: datetime, skip: set[uuid.UUID]
) -> _Due | None:
    """Claim one due connection (not in ``skip``): its ``metadata_checked_at`` moves to now
    and commits at once, so no other worker takes it while it is fetched with no lock held."""
    async with sessionmaker() as db, db.begin():
        row = await repository.next_connection_due(db, checked_before, skip)
        if row is None:
            return None
        due = _Due(
            id=row.id,
            provider_name=row.provider_name,
            metadata_url=row.metadata_url or "",
            checked_before=row.metadata_checked_at,
            claimed_at=datetime.now(UTC),
        )
        row.metadata_checked_at = due.claimed_at
        return due


async def _fetch(fetcher: MetadataFetcher, due: _Due) -> IdpMetadata | str:
    """The checked metadata at ``due``'s URL, or why it cannot be used (for
    ``metadata_error``). Holds no database connection: the identity provider may be slow."""
    try:
        return parse_metadata(await fetcher.fetch(due.metadata_url), now=due.claimed_at)
    except (MetadataUrlRefused, MetadataUnreachable, InvalidSamlMetadata) as exc:
        log.warning("saml_metadata_refresh_failed", provider=due.provider_name, error=exc.message)
        return exc.message
    except Exception:
        # One tenant's document or server must not stop the pass for the others.
        log.exception("saml_metadata_refresh_unforeseen", provider=due.provider_name)
        return UNFORESEEN


async def _apply(
    sessionmaker: async_sessionmaker[AsyncSession],
    cognito: CognitoClient,
    due: _Due,
    fetched: IdpMetadata | str,
) -> bool | None:
    """Record what the fetch of ``due`` found, under the connection's lock: True when the
    metadata changed (Cognito has the new one), False when it did not, None when it could
    not be used (``metadata_error`` says why: the fetch's failure, or Cognito's). A
    connection saved or removed since the claim is left as that save made it (None).

    A Cognito refusal keeps the metadata Cognito has until tomorrow's fetch; Cognito out of
    reach gives the claim back, so the next pass tries again. Identifiers are not touched
    here: :func:`upkeep` runs :func:`resync_identifiers` next, so a Cognito refusal of
    identifiers does not roll back a good metadata refresh.
    """
    async with sessionmaker() as db, db.begin():
        row = await repository.connection_by_id(db, due.id, for_update=True)
        if row is None or row.metadata_url != due.metadata_url:
            return None
        if row.metadata_checked_at != due.claimed_at:
            return None  # saved again meanwhile: that save checked its own metadata
        if isinstance(fetched, str):
            row.metadata_error = fetched
            return None
        row.metadata_error = None
        if fetched.document == row.metadata_xml:
            return False
        try:
            async with db.begin_nested():
                row.metadata_xml = fetched.document
                row.idp_entity_id = fetched.entity_id
                row.sso_url = fetched.sso_url
                row.certificate_expires_at = fetched.certificate_expires_at
                await cognito.update_identity_provider(identity_provider_of(row))
        except (CognitoError, CognitoUnavailable) as exc:
            log.warning("saml_cognito_update_failed", provider=due.provider_name, error=str(exc))
            await db.refresh(row)  # the savepoint's changes are gone: what Cognito still has
            if isinstance(exc, CognitoUnavailable):
                row.metadata_checked_at = due.checked_before
                row.metadata_error = (
                    "Cognito could not be reached to take the new metadata; it is tried again "
                    "within the hour."
                )
            else:
                row.metadata_error = f"Cognito refused the new metadata: {exc}"
            return None
        return True


async def _record_failure(
    sessionmaker: async_sessionmaker[AsyncSession], due: _Due, message: str
) -> None:
    """Record ``message`` as the metadata error of ``due``'s connection, if it is still the
    one claimed (an unforeseen failure rolled back the transaction that would have)."""
    async with sessionmaker() as db, db.begin():
        row = await repository.connection_by_id(db, due.id, for_update=True)
        if row is not None and row.metadata_checked_at == due.claimed_at:
            row.metadata_error = message


async def refresh_due(
    sessionmaker: async_sessionmaker[AsyncSession],
    cognito: CognitoClient,
    fetcher: MetadataFetcher,
    *,
    interval: timedelta = REFRESH_INTERVAL,
) -> RefreshReport:
    """Fetch again the metadata of every connection set up by URL and last fetched more than
    ``interval`` ago (see the module). Each connection is claimed in a short transaction,
    fetched with no database connection held, then updated in a transaction of its own; a
    failure of one connection (its server, its document, Cognito, or anything unforeseen) is
    recorded on it and the pass goes on with the others.

    Returns the counts. Raises only what the database raises while claiming.
    """
    report = RefreshReport()
    taken: set[uuid.UUID] = set()
    while True:
        due = await _claim(sessionmaker, datetime.now(UTC) - interval, taken)
        if due is None:
            return report
        taken.add(due.id)
        fetched = await _fetch(fetcher, due)
        try:
            changed = await _apply(sessionmaker, cognito, due, fetched)
        except Exception:
            log.exception("saml_metadata_refresh_unforeseen", provider=due.provider_name)
            await _record_failure(sessionmaker, due, UNFORESEEN)
            changed = None
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
    Lost), one transaction each; returns how many changed.

    A failure of one connection is recorded on it (``identifiers_error``) and the pass goes
    on: Cognito out of reach is tried again at the next pass; a refusal
    (``identifiers_failed_at``) a day later, or at the next request that changes the
    account's verified domains. Raises only what the database raises while claiming.
    """
    changed = 0
    taken: set[uuid.UUID] = set()
    while True:
        async with sessionmaker() as db, db.begin():
            row = await repository.next_connection_out_of_step(
                db,
                taken,
                max_length=IDENTIFIER_MAX_LENGTH,
                max_count=IDENTIFIERS_MAX,
                refused_before=datetime.now(UTC) - REFRESH_INTERVAL,
            )
            if row is None:
                return changed
            taken.add(row.id)
            name = row.provider_name
            try:
                async with db.begin_nested():
                    await sync_identifiers(db=db, cognito=cognito, row=row)
            except Exception as exc:
                await db.refresh(row)  # the savepoint's changes are gone
                row.identifiers_error = _identifiers_failure(exc)
                if isinstance(exc, CognitoError):
                    row.identifiers_failed_at = datetime.now(UTC)
                    log.warning("saml_cognito_update_failed", provider=name, error=str(exc))
                elif isinstance(exc, CognitoUnavailable):
                    log.warning("saml_cognito_update_failed", provider=name, error=str(exc))
                else:
                    log.exception("saml_identifiers_unforeseen", provider=name)
                continue
            changed += 1


def _identifiers_failure(exc: Exception) -> str:
    """``identifiers_error`` after ``exc``, for the set-up."""
    if isinstance(exc, CognitoError):
        return (
            f"Cognito refused the connection's domains ({exc}); they are sent again a day "
            "after the refusal, or at the next change of the verified domains."
        )
    if isinstance(exc, CognitoUnavailable):
        return (
            "Cognito could not be reached to update the connection's domains; they are sent "
            "again within the hour."
        )
    return (
        "The connection's domains could not be sent to Cognito (an unexpected error, logged "
        "for us); they are sent again within the hour."
    )


async def upkeep(
    sessionmaker: async_sessionmaker[AsyncSession], cognito: CognitoClient, settings: Settings
) -> RefreshReport:
    """One pass (the periodic task's work, api/app/jobs/periodic.py): the metadata due a refresh,
    fetched within the limits of ``settings``, the identifiers out of step with their
    account's verified domains, then the expiry emails due."""
    fetcher = MetadataFetcher.from_settings(settings, max_bytes=MAX_METADATA_BYTES)
    report = await refresh_due(sessionmaker, cognito, fetcher)
    report.resynced = await resync_identifiers(sessionmaker, cognito)
    report.notices = await notify_expiring(sessionmaker)
    return report
