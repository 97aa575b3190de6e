"""SSO routes: the setting (SPEC 7: POST /web/sso) and the account's domains (README
"Verified domains": GET/POST /web/sso/domains, POST /web/sso/domains/{id}/verify,
DELETE /web/sso/domains/{id})."""

import uuid

from fastapi import APIRouter, Response

from api.auth.errors import (
    AccountRequired,
    EmailVerificationRequired,
    Forbidden,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.deps import (
    Audit,
    CurrentUser,
    DbSession,
    DomainVerifyThrottle,
    OwnerOrAdmin,
    ReadEngine,
    Resolver,
    VerifiedEmail,
)
from api.errors import NotFound, RateLimited, RequestValidationFailed, error_responses
from api.sso import service
from api.sso.errors import (
    DnsUnavailable,
    DomainAlreadyAdded,
    GoogleSsoAuthTypeRequired,
    InvalidDomain,
    PersonalGmailAccount,
    PublicEmailDomain,
    VerifiedDomainRequired,
)
from api.sso.schemas import (
    SsoDomainCreate,
    SsoDomainResponse,
    SsoDomainsResponse,
    SsoResponse,
    SsoUpdate,
)

router = APIRouter(prefix="/web", tags=["sso"])

_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal)


@router.post(
    "/sso",
    response_model=SsoResponse,
    dependencies=[OwnerOrAdmin, VerifiedEmail],
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


@router.get("/sso/domains", response_model=SsoDomainsResponse, responses=error_responses(*_AUTH))
async def list_domains(caller: CurrentUser, db: DbSession) -> SsoDomainsResponse:
    """The account's domains with their state, last check and TXT record."""
    return SsoDomainsResponse(domains=await service.list_domains(db=db, caller=caller))


@router.post(
    "/sso/domains",
    status_code=201,
    response_model=SsoDomainResponse,
    dependencies=[OwnerOrAdmin, VerifiedEmail],
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
    dependencies=[OwnerOrAdmin, VerifiedEmail, DomainVerifyThrottle],
    responses=error_responses(
        *_AUTH,
        Forbidden,
        EmailVerificationRequired,
        NotFound,
        RateLimited,
        DnsUnavailable,
        RequestValidationFailed,
    ),
)
async def verify_domain(
    domain_id: uuid.UUID,
    caller: CurrentUser,
    db: DbSession,
    reads: ReadEngine,
    resolver: Resolver,
    audit: Audit,
) -> SsoDomainResponse:
    """Look the domain's TXT record up now; the domain comes back Verified, or Failed or
    Lost with the reason. 429 also when this server runs too many lookups at once."""
    return SsoDomainResponse(
        domain=await service.verify_domain(
            db=db,
            reads=reads,
            resolver=resolver,
            caller=caller,
            audit=audit,
            domain_id=domain_id,
        )
    )


@router.delete(
    "/sso/domains/{domain_id}",
    status_code=204,
    response_class=Response,
    dependencies=[OwnerOrAdmin],
    responses=error_responses(*_AUTH, Forbidden, NotFound, RequestValidationFailed),
)
async def remove_domain(
    domain_id: uuid.UUID, caller: CurrentUser, db: DbSession, audit: Audit
) -> Response:
    """Remove a domain; Google identities of it no longer join the account."""
    await service.remove_domain(db=db, caller=caller, audit=audit, domain_id=domain_id)
    return Response(status_code=204)
