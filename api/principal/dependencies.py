"""Annotated dependency aliases shared by the routers (STYLE: full-stack-fastapi-template).

``DbSession`` is the request's database transaction; ``Claims`` a verified access token;
``CurrentUser`` the caller's user and account, the root of every tenant-scoped query;
``ApiKeyAccount`` the account of an ``X-API-Key`` header (the metering intake's caller).

Naming rule: an alias is named for what the route receives (``DbSession``, ``CurrentUser``,
``Cognito``); the suffix ``Dep`` only where that name is the class itself (``SettingsDep``,
``PasswordAttemptsDep``). This module imports only ``api.principal``, ``api.audit``,
``api.kernel.db``,
``api.kernel.config``, ``api.adapters``, ``api.ratelimit``, ``api.principal.resources`` (the
app's long-lived
objects, read through :func:`~api.principal.resources.resources_of`) and
``api.kernel.http.client_address``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.routing import APIRoute
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.adapters.cognito import CognitoClient
from api.adapters.dns_resolver import DnsResolver
from api.adapters.stripe import StripeGateway
from api.audit import DIRECTORY_SYNC, Actor, AuditTrail, SignInLog
from api.kernel.config import Settings
from api.kernel.db import get_db
from api.kernel.errors import RateLimited, declare_in_document
from api.kernel.http.client_address import client_address
from api.kernel.secretbox import KeyRing
from api.models import Role
from api.principal import principal
from api.principal.access_tokens import PREFIX as ACCESS_TOKEN_PREFIX
from api.principal.access_tokens import REQUESTS as ACCESS_TOKEN_REQUESTS
from api.principal.access_tokens import find_token
from api.principal.errors import (
    AccessTokenNotAccepted,
    AccessTokenRefusal,
    AccountRequired,
    ApiKeyRequired,
    EmailVerificationRequired,
    IdentityProviderUnavailable,
    InvalidApiKey,
    InvalidScimToken,
    MissingScope,
    NotAuthenticated,
    ScimTokenRequired,
)
from api.principal.principal import Caller, KeyHolder
from api.principal.resources import resources_of
from api.principal.roles import NOT_A_ROLES, TOKEN_SCOPES, Permission, holders, require
from api.principal.scim_tokens import DirectoryClient, get_directory_client
from api.principal.tokens import (
    AccessClaims,
    AccessTokenVerifier,
    IdentityProviderDown,
    InvalidToken,
)
from api.ratelimit import PasswordAttempts, Quota, QuotaLimits, RateLimiter, Throttle

DbSession = Annotated[AsyncSession, Depends(get_db, scope="function")]

# Every dependency here is ``async def``, even when it awaits nothing: FastAPI runs a plain
# ``def`` dependency in the thread pool, a thread hop on every request that uses it.

_bearer = HTTPBearer(auto_error=False, description="Cognito access token")


# Each getter reads one field of the app's resources (api/principal/resources.py).
async def _settings(request: Request) -> Settings:
    return resources_of(request.app).settings


async def _cognito(request: Request) -> CognitoClient:
    return resources_of(request.app).cognito


async def _stripe(request: Request) -> StripeGateway:
    return resources_of(request.app).stripe


async def _dns_resolver(request: Request) -> DnsResolver:
    return resources_of(request.app).dns_resolver


async def _rate_limiter(request: Request) -> RateLimiter:
    return resources_of(request.app).rate_limiter


async def _read_engine(request: Request) -> AsyncEngine:
    return resources_of(request.app).read_engine


async def _token_verifier(request: Request) -> AccessTokenVerifier:
    return resources_of(request.app).token_verifier


async def _client_address(request: Request) -> str:
    """The client's IP address: the peer's, or behind ``TRUSTED_PROXIES`` the one they saw
    (api/kernel/http/client_address.py)."""
    peer = request.client.host if request.client else "unknown"
    return client_address(
        peer, request.headers.getlist("x-forwarded-for"), resources_of(request.app).trusted_networks
    )


SettingsDep = Annotated[Settings, Depends(_settings)]
# The autocommit engine of safe requests (api/kernel/db.py), for reads that take a connection
# themselves instead of the request's ORM session.
ReadEngine = Annotated[AsyncEngine, Depends(_read_engine)]
Limiter = Annotated[RateLimiter, Depends(_rate_limiter)]
TokenVerifier = Annotated[AccessTokenVerifier, Depends(_token_verifier)]
ClientAddress = Annotated[str, Depends(_client_address)]


PASSWORD_ATTEMPTS = Throttle(
    "sign-in", window_s="SIGN_IN_LIMIT_WINDOW_S", per_address="SIGN_IN_LIMIT_PER_ADDRESS"
)
"""Every password (or code) attempt per client address (api/ratelimit.py ``PasswordAttempts``):
the sign-in routes and two-step sign-in's both count it, so it is declared here, below both;
the sign-in feature lists it (api/identity/sign_in/feature.py)."""


@dataclass(frozen=True, slots=True)
class _PasswordAttempts:
    throttle: Throttle

    async def __call__(
        self,
        request: Request,
        limiter: Limiter,
        settings: SettingsDep,
        client_address: ClientAddress,
    ) -> PasswordAttempts:
        per_address = resources_of(request.app).throttles[self.throttle]
        return PasswordAttempts(limiter, settings, client_address, per_address)


PasswordAttemptsDep = Annotated[PasswordAttempts, Depends(_PasswordAttempts(PASSWORD_ATTEMPTS))]
Cognito = Annotated[CognitoClient, Depends(_cognito)]
Stripe = Annotated[StripeGateway, Depends(_stripe)]
Resolver = Annotated[DnsResolver, Depends(_dns_resolver)]


async def _key_ring(request: Request) -> KeyRing:
    return resources_of(request.app).key_ring


KeyRingDep = Annotated[KeyRing, Depends(_key_ring)]


async def get_optional_access_token(request: Request) -> str | None:
    """The raw bearer token, or None when there is none. Unverified: only for handing back to
    Cognito (sign-out), so the route stays open to callers without a token and the contract
    does not list it as protected."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


OptionalAccessToken = Annotated[str | None, Depends(get_optional_access_token)]


BearerCredentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


async def _verify(
    request: Request, credentials: HTTPAuthorizationCredentials | None
) -> AccessClaims:
    if credentials is None:
        raise NotAuthenticated("Authentication required")
    verifier = resources_of(request.app).token_verifier
    try:
        return await verifier.verify(credentials.credentials)
    except InvalidToken as exc:
        raise NotAuthenticated("Your session has expired. Please sign in again.") from exc
    except IdentityProviderDown as exc:
        raise IdentityProviderUnavailable() from exc


async def get_claims(request: Request, credentials: BearerCredentials) -> AccessClaims:
    """Verify the bearer access token (the app's ``token_verifier``: local RS256 check,
    verified tokens cached until they expire).

    Raises:
        NotAuthenticated: no ``Authorization: Bearer`` header, or an invalid/expired token.
        IdentityProviderUnavailable: the pool's signing keys cannot be fetched (503).
    """
    return await _verify(request, credentials)


Claims = Annotated[AccessClaims, Depends(get_claims)]


async def get_claims_or_token(
    request: Request, credentials: BearerCredentials
) -> AccessClaims | Caller:
    """As :func:`get_claims`, or the access token the request bears as its caller (README
    "Automation"): for a route that reads the caller's account from the claims alone.

    Raises: as :func:`get_claims`, and the token's refusals (401, 429)."""
    if _bears_access_token(request):
        return await _token_caller(request)
    return await _verify(request, credentials)


ClaimsOrToken = Annotated[AccessClaims | Caller, Depends(get_claims_or_token)]


async def get_caller(request: Request, credentials: BearerCredentials) -> Caller:
    """Verify the bearer access token (as :func:`get_claims`) and load the caller's user and
    account, refusing a token the account's sign-in policy no longer lets act (one autocommit
    read, outside the request's transaction; the policy: ``api.principal.principal``).

    This runs on every protected request, so it verifies the token itself rather than through
    ``Claims``, and reads the app's state directly: each dependency level costs FastAPI's
    resolution, which weighed on ``GET /web/session`` (bench/api.py with --profile).

    Raises:
        NotAuthenticated: no ``Authorization: Bearer`` header, or an invalid/expired token.
        IdentityProviderUnavailable: the pool's signing keys cannot be fetched (503).
        GoogleSignInRequired, SessionEnded, UserRemoved, AccessDeactivated, InvitationLapsed:
            the sign-in policy refuses the token (401).
        AccountRequired: the identity is valid but belongs to no account yet (SPEC 4).
    """
    return await _load_caller(request, credentials)


def _bears_access_token(request: Request) -> bool:
    """Whether the request's bearer credential is an access token (by its prefix; whether it
    is a real one is :func:`_token_caller`'s to find)."""
    scheme, _, credential = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and credential.strip().startswith(ACCESS_TOKEN_PREFIX)


async def _token_caller(request: Request) -> Caller:
    """The access token the request bears, as its caller (README "Automation"), counted
    against the token's own request limit; found once per request (``request.state``).

    Raises: AccessTokenRefusal's codes (401), RateLimited (429)."""
    cached: Caller | None = getattr(request.state, "token_caller", None)
    if cached is not None:
        return cached
    resources = resources_of(request.app)
    secret = request.headers["authorization"].partition(" ")[2].strip()
    found = await find_token(resources.read_engine, secret, await _client_address(request))
    limits = resources.throttles[ACCESS_TOKEN_REQUESTS]
    await limits.hit_account(resources.rate_limiter, found.grant.token_id)
    caller = Caller.of_token(found)
    request.state.token_caller = caller
    return caller


async def _load_caller(
    request: Request, credentials: BearerCredentials, *, setting_up_two_step: bool = False
) -> Caller:
    if _bears_access_token(request):
        if setting_up_two_step:  # a person's own sign-in; the route's permit refuses it first
            raise AccessTokenNotAccepted()
        return await _token_caller(request)
    claims = await _verify(request, credentials)
    reads = resources_of(request.app).read_engine
    caller = await principal.get_caller(reads, claims, setting_up_two_step=setting_up_two_step)
    if caller is None:
        raise AccountRequired()
    return caller


CurrentUser = Annotated[Caller, Depends(get_caller)]


async def get_two_step_caller(request: Request, credentials: BearerCredentials) -> Caller:
    """As :func:`get_caller`, for the routes that set up two-step sign-in: a user who must
    set it up first (README "Two-step sign-in") may use them with a token of a sign-in made
    since then, and no other route.

    Raises: as :func:`get_caller`.
    """
    return await _load_caller(request, credentials, setting_up_two_step=True)


TwoStepCaller = Annotated[Caller, Depends(get_two_step_caller)]


# Permissions (SPEC 6; the table in api/principal/roles.py): every operation lists exactly one
# ``Permit(...)`` in its ``dependencies=``, which :func:`declare_permissions` shows in the
# contract as ``x-permission``; a role-bound one answers Forbidden (403, in its responses). The
# caller is cached for the request, so the check costs no query.
@dataclass(frozen=True, slots=True)
class _RolePermit:
    permission: Permission

    async def __call__(self, caller: CurrentUser) -> None:
        if caller.token is None:
            require(caller.role, self.permission)
        elif self.permission not in TOKEN_SCOPES:
            raise AccessTokenNotAccepted()
        elif self.permission.value not in caller.token.scopes:
            raise MissingScope(self.permission.value)


@dataclass(frozen=True, slots=True)
class _DirectoryPermit:
    permission: Permission

    async def __call__(self, client: DirectoryCaller) -> None:
        require(client.creator_role, self.permission)


@dataclass(frozen=True, slots=True)
class _Declared:
    """A permission no role grants (public, the person themselves, an API key): how the
    route authenticates its caller is the check."""

    permission: Permission

    async def __call__(self, request: Request) -> None:
        # An access token may call only what its scopes name: never a person's own route,
        # a public one, the metering intake or SCIM (README "Automation").
        if not _bears_access_token(request):
            return
        if self.permission not in TOKEN_SCOPES:
            raise AccessTokenNotAccepted()
        caller = await _token_caller(request)
        if caller.token is None or self.permission.value not in caller.token.scopes:
            raise MissingScope(self.permission.value)


_PERMITS = (_RolePermit, _DirectoryPermit, _Declared)


def Permit(permission: Permission) -> Any:  # noqa: N802 - reads as a declaration
    """The route dependency that declares and checks ``permission`` for a signed-in user
    (``Authorization: Bearer`` access token). For PUBLIC, SELF and API_KEY, and for a
    permission every role holds, it only declares: how the route authenticates its caller is
    the whole check, and no caller is looked up for it (``GET /web/account`` reads claims)."""
    if permission in NOT_A_ROLES or holders(permission) == frozenset(Role):
        return Depends(_Declared(permission))
    return Depends(_RolePermit(permission))


def DirectoryPermit(permission: Permission) -> Any:  # noqa: N802
    """The SCIM routes' :func:`Permit`: the token's creator's current role must hold it."""
    return Depends(_DirectoryPermit(permission))


def route_permission(route: APIRoute) -> Permission:
    """The one permission ``route`` declares.

    Raises:
        LookupError: it declares none or more than one (a route added without its
            permission is refused when the app is built).
    """
    found = [
        dependency.call.permission
        for dependency in route.dependant.dependencies
        if isinstance(dependency.call, _PERMITS)
    ]
    if len(found) != 1:
        raise LookupError(f"{route.name} ({route.path}) declares {len(found)} permits")
    return found[0]


def declare_permissions(router: APIRouter) -> None:
    """Show each documented operation's permission in the contract (``x-permission``).

    Raises: LookupError (see :func:`route_permission`)."""
    for route in router.routes:
        if isinstance(route, APIRoute) and route.include_in_schema:
            route.openapi_extra = {
                **(route.openapi_extra or {}),
                "x-permission": route_permission(route).value,
            }


ACCESS_TOKEN_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "description": (
        'An access token of the account (cat_..., README "Automation"): each operation '
        "names the scope it needs."
    ),
}


def document_access_tokens(document: dict[str, Any]) -> None:
    """Say in the built contract how each operation treats access tokens (README
    "Automation"), from the permission it declares (``x-permission``): one whose permission a
    token may hold as a scope accepts ``AccessToken`` beside the signed-in user's token, with
    that scope, and answers the token's refusals (401), ``MissingScope`` (403) and its
    request limit (429); any other refuses a token (``AccessTokenNotAccepted``, 403). The
    SCIM service's operations take no access token header of this kind (their own tokens)."""
    document["components"]["securitySchemes"]["AccessToken"] = ACCESS_TOKEN_SCHEME
    for operations in document["paths"].values():
        for operation in operations.values():
            permission = operation.get("x-permission")
            if permission is None or "scim" in operation.get("tags", []):
                continue  # the SCIM service answers in its own errors, to its own tokens
            if Permission(permission) in TOKEN_SCOPES:
                operation["security"] = [{"HTTPBearer": []}, {"AccessToken": [permission]}]
                declare_in_document(
                    document, operation, AccessTokenRefusal, MissingScope, RateLimited
                )
            else:
                declare_in_document(document, operation, AccessTokenNotAccepted)


def _require_verified_email(caller: Caller) -> None:
    # README "Security model", email ownership: until a registrant enters the code Cognito
    # emailed them, the address is only a claim, so nothing that speaks for its domain or
    # mails others in the account's name (invitations, domains, single sign-on) may run, and
    # no second factor may be tied to it (two-step sign-in: whoever claimed an address first
    # would keep its owner out even after a password reset proves the mailbox).
    if not caller.email_verified:
        raise EmailVerificationRequired.for_email(caller.email)


async def _verified_email(caller: CurrentUser) -> None:
    _require_verified_email(caller)


async def _two_step_verified_email(caller: TwoStepCaller) -> None:
    _require_verified_email(caller)


# A route listing it in ``dependencies=`` (after the role) declares EmailVerificationRequired
# (403) in its responses. ``TwoStepVerifiedEmail``: the same, for the set-up routes of
# two-step sign-in (their caller is ``TwoStepCaller``).
VerifiedEmail = Depends(_verified_email)
TwoStepVerifiedEmail = Depends(_two_step_verified_email)


def _trail(db: AsyncSession, caller: Caller, address: str) -> AuditTrail:
    if caller.token is not None:  # the token acts, named with its creator
        actor = Actor(
            user_id=None,
            name=caller.token.label,
            email="",
            client_address=address,
            token_id=caller.token.token_id,
        )
    else:
        actor = Actor(
            user_id=caller.user_id,
            name=f"{caller.first_name} {caller.last_name}".strip(),
            email=caller.email,
            client_address=address,
        )
    return AuditTrail(db, caller.account_id, actor)


async def _audit_trail(db: DbSession, caller: CurrentUser, address: ClientAddress) -> AuditTrail:
    """The request's audit log: the caller acting from the client's address, written in the
    request's transaction (api/audit)."""
    return _trail(db, caller, address)


async def _two_step_audit_trail(
    db: DbSession, caller: TwoStepCaller, address: ClientAddress
) -> AuditTrail:
    return _trail(db, caller, address)


Audit = Annotated[AuditTrail, Depends(_audit_trail)]
# The audit log of the routes that set up two-step sign-in (their caller is ``TwoStepCaller``).
TwoStepAudit = Annotated[AuditTrail, Depends(_two_step_audit_trail)]


async def _sign_in_log(request: Request, address: ClientAddress) -> SignInLog:
    resources = resources_of(request.app)
    user_agent = request.headers.get("user-agent", "")
    return SignInLog(resources.side_engine, address, user_agent, resources.settings.public_url)


SignIns = Annotated[SignInLog, Depends(_sign_in_log)]


_api_key_header = APIKeyHeader(
    name="X-API-Key", auto_error=False, description="The account's API key"
)


async def get_key_holder(
    request: Request, api_key: Annotated[str | None, Depends(_api_key_header)]
) -> KeyHolder:
    """The account whose API key the ``X-API-Key`` header carries (one autocommit read).

    Raises:
        ApiKeyRequired: no header, or an empty one.
        InvalidApiKey: the key matches no account.
    """
    api_key = (api_key or "").strip()
    if not api_key:
        raise ApiKeyRequired()
    async with resources_of(request.app).read_engine.connect() as connection:
        holder = await principal.get_key_holder(connection, api_key)
    if holder is None:
        raise InvalidApiKey()
    return holder


ApiKeyAccount = Annotated[KeyHolder, Depends(get_key_holder)]


_scim_bearer = HTTPBearer(
    auto_error=False, scheme_name="ScimToken", description="A SCIM token of the account"
)


async def get_directory_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_scim_bearer)],
) -> DirectoryClient:
    """The account whose SCIM token the bearer header carries (one autocommit read); the
    SCIM routes count the request against the account's limit with :func:`DirectoryThrottle`.

    Raises:
        ScimTokenRequired: no ``Authorization: Bearer`` header.
        InvalidScimToken: the token is revoked or was never generated.
        ScimTokenCreatorLeft: the token's creator no longer has the authority it acts with.
    """
    if credentials is None or not credentials.credentials.strip():
        raise ScimTokenRequired()
    async with resources_of(request.app).read_engine.connect() as connection:
        client = await get_directory_client(connection, credentials.credentials.strip())
    if client is None:
        raise InvalidScimToken()
    return client


DirectoryCaller = Annotated[DirectoryClient, Depends(get_directory_caller)]


async def _directory_audit(
    db: DbSession, client: DirectoryCaller, address: ClientAddress
) -> AuditTrail:
    """The SCIM request's audit log: 'Directory sync' acting from the client's address, in the
    request's transaction."""
    return AuditTrail(db, client.account_id, replace(DIRECTORY_SYNC, client_address=address))


DirectoryAudit = Annotated[AuditTrail, Depends(_directory_audit)]


# Abuse controls (README "Sign-in and abuse limits"; api/ratelimit.py): route dependencies that
# count the attempt against a Throttle (or a Quota) a feature declares and refuse it with 429
# over a limit. Each reads the declaration's limits from the app's catalogue
# (``Resources.throttles``, built from the features' declarations, api/app/features.py);
# :func:`route_limits` finds them on a route, so the app refuses to start with a route that
# counts a throttle no feature declares (whose limits would be missing, and which the dev
# stack would not lift).


@dataclass(frozen=True, slots=True)
class _AddressThrottle:
    throttle: Throttle

    async def __call__(self, request: Request, limiter: Limiter, address: ClientAddress) -> None:
        await resources_of(request.app).throttles[self.throttle].hit(limiter, address)


@dataclass(frozen=True, slots=True)
class _AccountThrottle:
    throttle: Throttle

    async def __call__(
        self, request: Request, limiter: Limiter, address: ClientAddress, caller: CurrentUser
    ) -> None:
        limits = resources_of(request.app).throttles[self.throttle]
        await limits.hit(limiter, address, caller.account_id)


@dataclass(frozen=True, slots=True)
class _TwoStepAccountThrottle:
    throttle: Throttle

    async def __call__(
        self, request: Request, limiter: Limiter, address: ClientAddress, caller: TwoStepCaller
    ) -> None:
        limits = resources_of(request.app).throttles[self.throttle]
        await limits.hit(limiter, address, caller.account_id)


@dataclass(frozen=True, slots=True)
class _KeyAccountThrottle:
    throttle: Throttle

    async def __call__(
        self, request: Request, limiter: Limiter, address: ClientAddress, holder: ApiKeyAccount
    ) -> None:
        limits = resources_of(request.app).throttles[self.throttle]
        await limits.hit(limiter, address, holder.account_id)


@dataclass(frozen=True, slots=True)
class _DirectoryThrottle:
    throttle: Throttle

    async def __call__(self, request: Request, limiter: Limiter, client: DirectoryCaller) -> None:
        limits = resources_of(request.app).throttles[self.throttle]
        await limits.hit_account(limiter, client.account_id)


def AddressThrottle(throttle: Throttle) -> Any:  # noqa: N802 - reads as a declaration
    """The route dependency counting ``throttle`` per client address, before anything else
    of the request (an anonymous attempt counts too).

    Raises:
        ValueError: ``throttle`` has a per-account limit, which this would never count.
    """
    if throttle.per_account is not None:
        raise ValueError(f"throttle {throttle.name!r} is per account: AccountThrottle counts it")
    return Depends(_AddressThrottle(throttle))


def AccountThrottle(throttle: Throttle) -> Any:  # noqa: N802
    """The route dependency counting ``throttle`` per client address and the signed-in
    caller's account (``CurrentUser``)."""
    return Depends(_AccountThrottle(throttle))


def TwoStepAccountThrottle(throttle: Throttle) -> Any:  # noqa: N802
    """As :func:`AccountThrottle`, for the routes that set up two-step sign-in: counted for
    their own caller (``TwoStepCaller``), as a user whose set-up is due may call nothing
    else."""
    return Depends(_TwoStepAccountThrottle(throttle))


def KeyAccountThrottle(throttle: Throttle) -> Any:  # noqa: N802
    """The route dependency counting ``throttle`` per client address and the account of the
    request's API key (``ApiKeyAccount``)."""
    return Depends(_KeyAccountThrottle(throttle))


def DirectoryThrottle(throttle: Throttle) -> Any:  # noqa: N802
    """The route dependency counting ``throttle`` per account of the request's SCIM token,
    all its tokens together (README "Directory sync (SCIM)": a second token adds no
    requests), not per address: identity providers send from servers many accounts share.
    Listed before the route's :func:`DirectoryPermit`, a request its role refuses counts
    too."""
    return Depends(_DirectoryThrottle(throttle))


class QuotaSpender:
    """Spends units of one :class:`~api.ratelimit.Quota` for one account (the metering
    records of the request's API key)."""

    __slots__ = ("_account_id", "_limiter", "_limits")

    def __init__(self, limits: QuotaLimits, limiter: RateLimiter, account_id: uuid.UUID) -> None:
        self._limits, self._limiter, self._account_id = limits, limiter, account_id

    async def spend(self, amount: int) -> None:
        """Count ``amount`` units of the account.

        Raises:
            RateLimited: over the quota's limit in this window (429).
        """
        await self._limits.spend(self._limiter, self._account_id, amount)


@dataclass(frozen=True, slots=True)
class _KeyAccountQuota:
    quota: Quota

    async def __call__(
        self, request: Request, limiter: Limiter, holder: ApiKeyAccount
    ) -> QuotaSpender:
        limits = resources_of(request.app).quotas[self.quota]
        return QuotaSpender(limits, limiter, holder.account_id)


def KeyAccountQuota(quota: Quota) -> Any:  # noqa: N802
    """The route parameter's dependency that spends ``quota`` for the account of the
    request's API key: ``Annotated[QuotaSpender, KeyAccountQuota(METERING_RECORDS)]``."""
    return Depends(_KeyAccountQuota(quota))


_COUNTING = (
    _AddressThrottle,
    _AccountThrottle,
    _TwoStepAccountThrottle,
    _KeyAccountThrottle,
    _DirectoryThrottle,
    _PasswordAttempts,
)


def route_limits(route: APIRoute) -> tuple[frozenset[Throttle], frozenset[Quota]]:
    """The throttles and quotas ``route`` counts, through any of its dependencies."""
    throttles: set[Throttle] = set()
    quotas: set[Quota] = set()
    pending = list(route.dependant.dependencies)
    while pending:
        dependency = pending.pop()
        pending.extend(dependency.dependencies)
        if isinstance(dependency.call, _COUNTING):
            throttles.add(dependency.call.throttle)
        elif isinstance(dependency.call, _KeyAccountQuota):
            quotas.add(dependency.call.quota)
    return frozenset(throttles), frozenset(quotas)
