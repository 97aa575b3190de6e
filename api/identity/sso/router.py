"""SSO routes: the setting (SPEC 7: POST /web/sso), the account's domains (README
"Verified domains": GET/POST /web/sso/domains, POST /web/sso/domains/{id}/verify,
DELETE /web/sso/domains/{id}) and its SAML connection (README "SAML single sign-on":
GET/PUT/DELETE /web/sso/saml, POST /web/sso/saml/requirement and
/web/sso/saml/confirm-linking, all but GET an Owner's; its test sign-in is with the session
routes)."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Response

from api.adapters.metadata_url import MetadataFetcher
from api.identity.sso import saml, service
from api.identity.sso.errors import (
    DnsUnavailable,
    DomainAlreadyAdded,
    GoogleSsoAuthTypeRequired,
    InvalidDomain,
    InvalidSamlMetadata,
    PersonalGmailAccount,
    PublicEmailDomain,
    SamlConnectionRequired,
    SamlMetadataUnreachable,
    SamlSsoAuthTypeRequired,
    SsoChangeBusy,
    VerifiedDomainRequired,
)
from api.identity.sso.saml_metadata import MAX_METADATA_BYTES
from api.identity.sso.schemas import (
    SamlConnection,
    SamlConnectionUpdate,
    SamlMetadataByUrl,
    SamlMetadataByXml,
    SamlRequirementUpdate,
    SamlSettingsResponse,
    SsoDomainCreate,
    SsoDomainResponse,
    SsoDomainsResponse,
    SsoResponse,
    SsoUpdate,
)
from api.identity.sso.throttles import DOMAIN_VERIFY, SAML_METADATA
from api.kernel.errors import (
    NotFound,
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.principal.dependencies import (
    AccountThrottle,
    Audit,
    Cognito,
    CurrentUser,
    DbSession,
    Permit,
    ReadEngine,
    Resolver,
    SettingsDep,
    VerifiedEmail,
)
from api.principal.errors import (
    AccountRequired,
    EmailVerificationRequired,
    Forbidden,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.principal.roles import Permission

router = APIRouter(prefix="/web", tags=["sso"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal)


@router.post(
    "/sso",
    response_model=SsoResponse,
    dependencies=[Permit(Permission.GOOGLE_SSO_WRITE), VerifiedEmail],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        EmailVerificationRequired,
        PersonalGmailAccount,
        GoogleSsoAuthTypeRequired,
        VerifiedDomainRequired,
        RequestValidationFailed,
    ),
)
async def set_sso(body: SsoUpdate, caller: CurrentUser, db: DbSession, audit: Audit) -> SsoResponse:
    """Require (or stop requiring) Google sign-in for the account; requiring it needs a
    verified domain."""
    return SsoResponse(
        sso=await service.set_google_sso(
            db=db, caller=caller, audit=audit, required=body.require_google_sso
        )
    )


@router.get(
    "/sso/domains",
    response_model=SsoDomainsResponse,
    responses=error_responses(*_AUTH),
    dependencies=[Permit(Permission.SSO_READ)],
)
async def list_domains(caller: CurrentUser, db: DbSession) -> SsoDomainsResponse:
    """The account's domains with their state, last check and TXT record."""
    return SsoDomainsResponse(domains=await service.list_domains(db=db, caller=caller))


@router.post(
    "/sso/domains",
    status_code=201,
    response_model=SsoDomainResponse,
    dependencies=[Permit(Permission.SSO_WRITE), VerifiedEmail],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        EmailVerificationRequired,
        InvalidDomain,
        PublicEmailDomain,
        DomainAlreadyAdded,
        RequestValidationFailed,
    ),
)
async def add_domain(
    body: SsoDomainCreate, caller: CurrentUser, db: DbSession, audit: Audit
) -> SsoDomainResponse:
    """Add a domain (Pending) and get the TXT record that proves it."""
    return SsoDomainResponse(
        domain=await service.add_domain(db=db, caller=caller, audit=audit, value=body.domain)
    )


@router.post(
    "/sso/domains/{domain_id}/verify",
    response_model=SsoDomainResponse,
    dependencies=[Permit(Permission.SSO_WRITE), VerifiedEmail, AccountThrottle(DOMAIN_VERIFY)],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        EmailVerificationRequired,
        NotFound,
        RateLimited,
        DnsUnavailable,
        ProviderRefused,
        VendorUnavailable,
        RequestValidationFailed,
    ),
)
async def verify_domain(
    domain_id: uuid.UUID,
    caller: CurrentUser,
    db: DbSession,
    reads: ReadEngine,
    resolver: Resolver,
    cognito: Cognito,
    audit: Audit,
) -> SsoDomainResponse:
    """Look the domain's TXT record up now; the domain comes back Verified, or Failed or
    Lost with the reason. 429 also when this server runs too many lookups at once. With a
    SAML connection, its identity provider's domains follow (Cognito)."""
    return SsoDomainResponse(
        domain=await service.verify_domain(
            db=db,
            reads=reads,
            resolver=resolver,
            cognito=cognito,
            caller=caller,
            audit=audit,
            domain_id=domain_id,
        )
    )


@router.delete(
    "/sso/domains/{domain_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.SSO_WRITE)],
    responses=error_responses(
        *_AUTH, Forbidden, NotFound, ProviderRefused, RequestValidationFailed, VendorUnavailable
    ),
)
async def remove_domain(
    domain_id: uuid.UUID, caller: CurrentUser, db: DbSession, cognito: Cognito, audit: Audit
) -> Response:
    """Remove a domain; Google identities of it no longer join the account, and its people no
    longer reach the account's SAML connection."""
    await service.remove_domain(
        db=db, cognito=cognito, caller=caller, audit=audit, domain_id=domain_id
    )
    return Response(status_code=204)


async def _metadata_fetcher(settings: SettingsDep) -> MetadataFetcher:
    return MetadataFetcher.from_settings(settings, max_bytes=MAX_METADATA_BYTES)


MetadataSource = Annotated[MetadataFetcher, Depends(_metadata_fetcher)]


@router.get(
    "/sso/saml",
    response_model=SamlSettingsResponse,
    responses=error_responses(*_AUTH),
    dependencies=[Permit(Permission.SSO_READ)],
)
async def get_saml(
    caller: CurrentUser, db: DbSession, settings: SettingsDep, cognito: Cognito
) -> SamlSettingsResponse:
    """What the identity provider needs (the service provider's entity ID, ACS URL, NameID
    format and attribute names) and the account's SAML connection, null before set-up; with
    the pool's signing certificate when the identity provider wants signed requests."""
    return await saml.saml_settings(db=db, cognito=cognito, caller=caller, settings=settings)


@router.put(
    "/sso/saml",
    response_model=SamlConnection,
    dependencies=[
        Permit(Permission.IDENTITY_PROVIDERS_WRITE),
        VerifiedEmail,
        AccountThrottle(SAML_METADATA),
    ],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        EmailVerificationRequired,
        RateLimited,
        VerifiedDomainRequired,
        SamlMetadataUnreachable,
        InvalidSamlMetadata,
        ProviderRefused,
        RequestValidationFailed,
        SsoChangeBusy,
        VendorUnavailable,
    ),
)
async def save_saml(
    body: SamlConnectionUpdate,
    caller: CurrentUser,
    db: DbSession,
    reads: ReadEngine,
    audit: Audit,
    cognito: Cognito,
    fetcher: MetadataSource,
) -> SamlConnection:
    """Set up or update the SAML connection from the identity provider's metadata, by URL
    (fetched again every day) or as XML; each problem of the metadata is refused with a
    message naming it. The connection's domains are the account's verified domains. Owners
    only (an identity provider can sign in as anyone of the account); every Owner is told.
    Saves are throttled per account and per client address (429)."""
    return await saml.save_connection(
        db=db,
        reads=reads,
        caller=caller,
        audit=audit,
        cognito=cognito,
        fetcher=fetcher,
        metadata_url=body.metadata_url if isinstance(body, SamlMetadataByUrl) else None,
        metadata_xml=body.metadata_xml if isinstance(body, SamlMetadataByXml) else None,
    )


@router.delete(
    "/sso/saml",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.IDENTITY_PROVIDERS_WRITE)],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        NotFound,
        ProviderRefused,
        RequestValidationFailed,
        SsoChangeBusy,
        VendorUnavailable,
    ),
)
async def remove_saml(
    caller: CurrentUser, db: DbSession, audit: Audit, cognito: Cognito
) -> Response:
    """Remove the SAML connection; the account's users sign in with email and password again
    (they set one with Forgot password). Owners only; every Owner is told."""
    await saml.remove_connection(db=db, caller=caller, audit=audit, cognito=cognito)
    return Response(status_code=204)


@router.post(
    "/sso/saml/requirement",
    response_model=SsoResponse,
    dependencies=[Permit(Permission.IDENTITY_PROVIDERS_WRITE), VerifiedEmail],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        EmailVerificationRequired,
        SamlConnectionRequired,
        SamlSsoAuthTypeRequired,
        RequestValidationFailed,
    ),
)
async def set_saml_requirement(
    body: SamlRequirementUpdate, caller: CurrentUser, db: DbSession, audit: Audit
) -> SsoResponse:
    """Require (or stop requiring) sign-in through the SAML connection: password, Google and
    GitHub sign-in stop for the account's users. Only an Owner who signed in through the
    connection can require it (which confirms its linking); every Owner is told."""
    account = await saml.set_saml_requirement(
        db=db, caller=caller, audit=audit, required=body.require_saml_sso
    )
    return SsoResponse(sso=await service.sso_of(db=db, account=account))


@router.post(
    "/sso/saml/confirm-linking",
    response_model=SamlConnection,
    dependencies=[Permit(Permission.IDENTITY_PROVIDERS_WRITE), VerifiedEmail],
    responses=error_responses(
        *_AUTH, Forbidden, EmailVerificationRequired, NotFound, RequestValidationFailed
    ),
)
async def confirm_saml_linking(
    caller: CurrentUser, db: DbSession, audit: Audit, cognito: Cognito
) -> SamlConnection:
    """Let the SAML connection link a person's first sign-in to their existing user of the
    account (README "Security model", "Who someone is"): a connection an Admin saved before
    connecting was an Owner's signs in only people new to the account until an Owner confirms
    it. Owners only; audited; every Owner is told. 404 without a connection."""
    return await saml.confirm_linking(db=db, caller=caller, audit=audit, cognito=cognito)
