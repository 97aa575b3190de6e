"""Directory sync routes: the SCIM 2.0 service at ``/scim/v2`` (RFC 7644; its own bearer
tokens, ``application/scim+json``, SCIM error responses) and the token management of User
Management at ``/web/scim-tokens`` (README "Directory sync (SCIM)").

SCIM bodies are read as JSON and validated by scim2-models in the request's SCIM context
(creation, replacement, patch), and written back in the response's, with the client's
``attributes`` / ``excludedAttributes``; every refusal, the token's included, is a SCIM error
(:class:`ScimRoute`).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError
from scim2_models import (
    Context,
    Error,
    Group,
    PatchOp,
    ResponseParameters,
    SCIMException,
)

from api.identity.directory import groups, service, tokens
from api.identity.directory.errors import (
    SCIM_MEDIA_TYPE,
    InvalidValue,
    ResourceNotFound,
    ScimResponse,
    SearchNotImplemented,
    TooManyScimTokens,
    as_scim_error,
    scim_responses,
)
from api.identity.directory.resources import CONFIG, POLICY, PROVIDER
from api.identity.directory.resources import User as UserResource
from api.identity.directory.schemas import (
    DirectoryGroupRole,
    DirectoryGroups,
    DirectoryGroupView,
    DirectorySync,
    ScimGroup,
    ScimGroupList,
    ScimResourceType,
    ScimResourceTypeList,
    ScimSchema,
    ScimSchemaList,
    ScimServiceProviderConfig,
    ScimTokenCreated,
    ScimUser,
    ScimUserList,
)
from api.identity.directory.throttles import SCIM
from api.identity.membership import service as membership
from api.identity.membership.errors import CannotChangeOwnRole, LastOwnerRequired
from api.identity.membership.pool_users import PoolUsers
from api.identity.membership.throttles import INVITATION
from api.kernel.config import Settings
from api.kernel.errors import NotFound, RequestValidationFailed, error_responses
from api.principal.dependencies import (
    Audit,
    Cognito,
    CurrentUser,
    DbSession,
    DirectoryAudit,
    DirectoryCaller,
    DirectoryPermit,
    DirectoryThrottle,
    Limiter,
    Permit,
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
from api.principal.resources import resources_of
from api.principal.roles import Permission
from api.ratelimit import RateLimiter, ThrottleLimits, count_invitation

SCIM_BASE = "/scim/v2"


class ScimRoute(APIRoute):
    """A route whose every refusal (the token's, the body's, the service's) leaves it as an
    exception the SCIM service answers as a SCIM error (RFC 7644 3.12,
    ``api.identity.directory.errors``): raised, not answered here, so the request's transaction
    rolls back whole."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def scim_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:
                converted = as_scim_error(exc)
                if converted is exc:
                    raise
                raise converted from exc

        return scim_handler


router = APIRouter(
    prefix=SCIM_BASE, tags=["scim"], route_class=ScimRoute, default_response_class=ScimResponse
)
web_router = APIRouter(prefix="/web/scim-tokens", tags=["users"])
groups_web_router = APIRouter(prefix="/web/scim-groups", tags=["users"])

# ---------------------------------------------------------------- User Management: tokens


def _base_url(settings: SettingsDep) -> str:
    return settings.public_url.rstrip("/") + SCIM_BASE


_AUTH = (NotAuthenticated, AccountRequired, SignInPolicyRefusal, Forbidden)


@web_router.get(
    "",
    response_model=DirectorySync,
    dependencies=[Permit(Permission.DIRECTORY_READ)],
    responses=error_responses(*_AUTH),
)
async def get_directory_sync(
    caller: CurrentUser, db: DbSession, settings: SettingsDep
) -> DirectorySync:
    """The SCIM base URL and the account's SCIM tokens (Owners and Admins)."""
    return await tokens.directory_sync(
        db=db, account_id=caller.account_id, base_url=_base_url(settings)
    )


@web_router.post(
    "",
    status_code=201,
    response_model=ScimTokenCreated,
    dependencies=[Permit(Permission.DIRECTORY_WRITE), VerifiedEmail],
    responses=error_responses(*_AUTH, EmailVerificationRequired, TooManyScimTokens),
)
async def generate_scim_token(caller: CurrentUser, db: DbSession, audit: Audit) -> ScimTokenCreated:
    """Generate a SCIM token (Owners and Admins): the response is the only time it is shown.
    An account has at most 3 (409 ``TooManyScimTokens``: revoke one first)."""
    return await tokens.generate(db=db, caller=caller, audit=audit)


@web_router.delete(
    "/{token_id}",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.DIRECTORY_WRITE)],
    responses=error_responses(*_AUTH, NotFound, RequestValidationFailed),
)
async def revoke_scim_token(
    token_id: uuid.UUID, caller: CurrentUser, db: DbSession, audit: Audit
) -> Response:
    """Revoke a SCIM token: the identity provider's next request with it is refused."""
    await tokens.revoke(db=db, caller=caller, audit=audit, token_id=token_id)
    return Response(status_code=204)


# ---------------------------------------------------------------- User Management: groups


@groups_web_router.get(
    "",
    response_model=DirectoryGroups,
    dependencies=[Permit(Permission.DIRECTORY_READ)],
    responses=error_responses(*_AUTH),
)
async def list_directory_groups(caller: CurrentUser, db: DbSession) -> DirectoryGroups:
    """The groups the account's directory sent, by name, each with the role it gives
    (Owners and Admins)."""
    return await groups.directory_groups(db=db, account_id=caller.account_id)


@groups_web_router.put(
    "/{group_id}/role",
    response_model=DirectoryGroupView,
    dependencies=[Permit(Permission.USERS_WRITE)],
    responses=error_responses(
        *_AUTH,
        NotFound,
        CannotChangeOwnRole,
        LastOwnerRequired,
        RequestValidationFailed,
    ),
)
async def map_directory_group(
    group_id: Annotated[str, Path(max_length=64)],
    body: DirectoryGroupRole,
    caller: CurrentUser,
    db: DbSession,
    audit: Audit,
) -> DirectoryGroupView:
    """Set the role a directory group gives in the console (null: none); its members get the
    highest role of their mapped groups at once. Only an Owner maps a group to Owner or
    changes a group mapped to Owner (403); a change that would change the caller's own role
    (400 ``CannotChangeOwnRole``) or leave the account without an Owner (400
    ``LastOwnerRequired``) changes nothing."""
    return await groups.map_group(
        db=db, caller=caller, audit=audit, group_id=group_id, role=body.role
    )


# ---------------------------------------------------------------- SCIM service


def _json(payload: dict[str, Any] | list[Any], status_code: int = 200) -> Response:
    return Response(orjson.dumps(payload), status_code=status_code, media_type=SCIM_MEDIA_TYPE)


def _read(model: Any, payload: dict[str, Any], context: Context) -> Any:
    """``payload`` validated as ``model`` in the request's SCIM ``context``.

    Raises: the SCIM error scim2-models reports (invalidValue, mutability, noTarget...)."""
    try:
        return model.model_validate(payload, scim_ctx=context, scim_policy=POLICY)
    except ValidationError as exc:
        error = Error.from_validation_errors(exc)[0]
        raise SCIMException.from_error(error) from exc


class Returned:
    """The client's ``attributes`` and ``excludedAttributes`` query parameters (RFC 7644
    3.9), read into scim2-models' ``ResponseParameters`` for the resource's model."""

    def __init__(self, model: Any) -> None:
        self.model = model

    async def __call__(
        self,
        attributes: Annotated[str | None, Query(max_length=1000)] = None,
        excluded_attributes: Annotated[
            str | None, Query(alias="excludedAttributes", max_length=1000)
        ] = None,
    ) -> Any:
        try:
            return ResponseParameters[self.model](  # type: ignore[name-defined]
                attributes=attributes, excluded_attributes=excluded_attributes
            )
        except (ValidationError, SCIMException) as exc:
            raise InvalidValue(f"attributes: {exc}") from exc


def _dump(resource: Any, context: Context, returned: Any = None) -> dict[str, Any]:
    dumped: dict[str, Any] = resource.model_dump(scim_ctx=context, response_parameters=returned)
    return dumped


_USER_RETURNED = Annotated[Any, Depends(Returned(UserResource))]
_GROUP_RETURNED = Annotated[Any, Depends(Returned(Group))]
_PAYLOAD = Annotated[dict[str, Any], Body(media_type=SCIM_MEDIA_TYPE)]
_FILTER = Annotated[str | None, Query(alias="filter", max_length=1000)]
_START = Annotated[int | None, Query(alias="startIndex")]
_COUNT = Annotated[int | None, Query(alias="count")]


def _scim(permission: Permission) -> list[Any]:
    """The dependencies of a SCIM route with a token: the request counted against the
    account's limit (:data:`SCIM`, a refused one too), then the token creator's role checked."""
    return [DirectoryThrottle(SCIM), DirectoryPermit(permission)]


async def _count_invitation(
    limiter: RateLimiter,
    settings: Settings,
    throttle: ThrottleLimits,
    account_id: uuid.UUID,
    email: str,
) -> None:
    # A directory's invitation counts as User Management's does, per account per hour (not
    # per address: identity providers send from servers many accounts share), and against
    # the recipient's daily cap (README "Sign-in and abuse limits").
    await throttle.hit_account(limiter, account_id)
    await count_invitation(limiter, settings, email)


async def _directory(
    request: Request,
    client: DirectoryCaller,
    db: DbSession,
    audit: DirectoryAudit,
    cognito: Cognito,
    settings: SettingsDep,
    limiter: Limiter,
    pool_users: PoolUsers,
) -> service.Directory:
    throttle = resources_of(request.app).throttles[INVITATION]
    return service.Directory(
        db=db,
        cognito=cognito,
        audit=audit,
        account_id=client.account_id,
        # The token acts with its creator's authority, capped at their current role; it is
        # the directory acting, not its creator, so the directory may also move its creator.
        acting=membership.Acting(
            role=client.creator_role,
            user_id=None,
            name=f"Directory sync (a SCIM token of {client.creator_name})",
        ),
        base_url=_base_url(settings),
        invitation_validity=timedelta(days=settings.membership.invitation_validity_days),
        count_invitation=functools.partial(
            _count_invitation, limiter, settings, throttle, client.account_id
        ),
        pool_users=pool_users,
    )


DirectoryDep = Annotated[service.Directory, Depends(_directory)]


def _ok(model: type[Any], description: str = "OK") -> dict[str, Any]:
    return {"model": model, "description": description}


_DISCOVERY = scim_responses(404)
_READ = scim_responses(400, 401, 404, 429, 503)
_WRITE = scim_responses(400, 401, 403, 404, 409, 413, 429, 503)
_CREATE = scim_responses(400, 401, 403, 409, 413, 429, 503)


# Discovery describes the service, the same for every account: no token needed (RFC 7644 4).
_PUBLIC: dict[str, Any] = {"security": []}


@router.get(
    "/ServiceProviderConfig",
    responses={200: _ok(ScimServiceProviderConfig), **_DISCOVERY},
    openapi_extra=_PUBLIC,
    dependencies=[Permit(Permission.PUBLIC)],
)
async def get_service_provider_config() -> Response:
    """What the service supports (RFC 7644 4): PATCH, filters (at most 200 results), no bulk,
    no sort, no ETags, OAuth bearer tokens."""
    return _json(_dump(CONFIG, Context.RESOURCE_QUERY_RESPONSE))


@router.get(
    "/ResourceTypes",
    responses={200: _ok(ScimResourceTypeList), **_DISCOVERY},
    openapi_extra=_PUBLIC,
    dependencies=[Permit(Permission.PUBLIC)],
)
async def list_resource_types() -> Response:
    """The resource types: ``User`` at ``/Users``, ``Group`` at ``/Groups``."""
    return _json(_list_of(list(PROVIDER.resource_types)))


@router.get(
    "/ResourceTypes/{name}",
    responses={200: _ok(ScimResourceType), **_DISCOVERY},
    openapi_extra=_PUBLIC,
    dependencies=[Permit(Permission.PUBLIC)],
)
async def get_resource_type(name: str) -> Response:
    """One resource type by its id (``User``, ``Group``)."""
    for resource_type in PROVIDER.resource_types:
        if resource_type.id == name:
            return _json(_dump(resource_type, Context.RESOURCE_QUERY_RESPONSE))
    raise ResourceNotFound(f"No resource type {name}")


@router.get(
    "/Schemas",
    responses={200: _ok(ScimSchemaList), **_DISCOVERY},
    openapi_extra=_PUBLIC,
    dependencies=[Permit(Permission.PUBLIC)],
)
async def list_schemas() -> Response:
    """The schemas of the User and Group resources, as the console keeps them."""
    return _json(_list_of(list(PROVIDER.schemas)))


@router.get(
    "/Schemas/{schema_id}",
    responses={200: _ok(ScimSchema), **_DISCOVERY},
    openapi_extra=_PUBLIC,
    dependencies=[Permit(Permission.PUBLIC)],
)
async def get_schema(schema_id: str) -> Response:
    """One schema by its URN."""
    for schema in PROVIDER.schemas:
        if schema.id == schema_id:
            return _json(_dump(schema, Context.RESOURCE_QUERY_RESPONSE))
    raise ResourceNotFound(f"No schema {schema_id}")


def _list_of(resources: list[Any]) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        "totalResults": len(resources),
        "startIndex": 1,
        "itemsPerPage": len(resources),
        "Resources": [_dump(r, Context.RESOURCE_QUERY_RESPONSE) for r in resources],
    }


@router.get(
    "/Users",
    responses={200: _ok(ScimUserList), **_READ},
    dependencies=_scim(Permission.USERS_READ),
)
async def list_scim_users(
    directory: DirectoryDep,
    returned: _USER_RETURNED,
    filter_: _FILTER = None,
    start_index: _START = None,
    count: _COUNT = None,
) -> Response:
    """The account's users meeting ``filter`` (``userName eq``, ``externalId eq``,
    ``emails[value eq]``, their ``and``/``or``...), ``count`` (at most 200) from ``startIndex``
    (1-based)."""
    page = await service.list_users(
        directory, filter_=filter_, start_index=start_index, count=count
    )
    return _json(_dump(page, Context.RESOURCE_QUERY_RESPONSE, returned))


@router.post(
    "/Users",
    status_code=201,
    responses={201: _ok(ScimUser, "The user as stored"), **_CREATE},
    dependencies=_scim(Permission.USERS_WRITE),
)
async def create_scim_user(
    directory: DirectoryDep, payload: _PAYLOAD, returned: _USER_RETURNED
) -> Response:
    """Provision a user (a Member until Groups say otherwise), or take over the account's
    user of that email; Pending until their first sign-in."""
    resource = _read(UserResource, payload, Context.RESOURCE_CREATION_REQUEST)
    created = await service.create_user(directory, resource)
    return _json(_dump(created, Context.RESOURCE_CREATION_RESPONSE, returned), 201)


@router.get(
    "/Users/{resource_id}",
    responses={200: _ok(ScimUser), **_READ},
    dependencies=_scim(Permission.USERS_READ),
)
async def get_scim_user(
    resource_id: str, directory: DirectoryDep, returned: _USER_RETURNED
) -> Response:
    """One user of the account."""
    user = await service.get_user(directory, resource_id)
    return _json(_dump(user, Context.RESOURCE_QUERY_RESPONSE, returned))


@router.put(
    "/Users/{resource_id}",
    responses={200: _ok(ScimUser, "The user as stored"), **_WRITE},
    dependencies=_scim(Permission.USERS_WRITE),
)
async def replace_scim_user(
    resource_id: str, directory: DirectoryDep, payload: _PAYLOAD, returned: _USER_RETURNED
) -> Response:
    """Replace a user's attributes (``active`` false turns their access off at once)."""
    resource = _read(UserResource, payload, Context.RESOURCE_REPLACEMENT_REQUEST)
    user = await service.replace_user(directory, resource_id, resource)
    return _json(_dump(user, Context.RESOURCE_REPLACEMENT_RESPONSE, returned))


@router.patch(
    "/Users/{resource_id}",
    responses={200: _ok(ScimUser, "The user as stored"), **_WRITE},
    dependencies=_scim(Permission.USERS_WRITE),
)
async def patch_scim_user(
    resource_id: str, directory: DirectoryDep, payload: _PAYLOAD, returned: _USER_RETURNED
) -> Response:
    """Apply PATCH operations (add, replace, remove; with or without ``path``; any case)."""
    patch = _read(PatchOp[UserResource], payload, Context.RESOURCE_PATCH_REQUEST)
    user = await service.patch_user(directory, resource_id, patch)
    return _json(_dump(user, Context.RESOURCE_PATCH_RESPONSE, returned))


@router.delete(
    "/Users/{resource_id}",
    status_code=204,
    responses=scim_responses(400, 401, 403, 404, 429, 503),
    dependencies=_scim(Permission.USERS_WRITE),
)
async def delete_scim_user(resource_id: str, directory: DirectoryDep) -> Response:
    """Remove a user from the account (their access ends with it)."""
    await service.delete_user(directory, resource_id)
    return Response(status_code=204)


@router.get(
    "/Groups",
    responses={200: _ok(ScimGroupList), **_READ},
    dependencies=_scim(Permission.USERS_READ),
)
async def list_scim_groups(
    directory: DirectoryDep,
    returned: _GROUP_RETURNED,
    filter_: _FILTER = None,
    start_index: _START = None,
    count: _COUNT = None,
) -> Response:
    """The account's groups meeting ``filter`` (``displayName eq``, ``externalId eq``,
    ``members[value eq "<user id>"]``...), ``count`` (at most 200) from ``startIndex``."""
    page = await service.list_groups(
        directory, filter_=filter_, start_index=start_index, count=count
    )
    return _json(_dump(page, Context.RESOURCE_QUERY_RESPONSE, returned))


@router.post(
    "/Groups",
    status_code=201,
    responses={201: _ok(ScimGroup, "The group as stored"), **_CREATE},
    dependencies=_scim(Permission.USERS_WRITE),
)
async def create_scim_group(
    directory: DirectoryDep, payload: _PAYLOAD, returned: _GROUP_RETURNED
) -> Response:
    """Create a group under the directory's own name (unique in the account, any case), with
    its members; it gives no role until the account maps it in User Management."""
    resource = _read(Group, payload, Context.RESOURCE_CREATION_REQUEST)
    group = await service.create_group(directory, resource)
    return _json(_dump(group, Context.RESOURCE_CREATION_RESPONSE, returned), 201)


@router.get(
    "/Groups/{group_id}",
    responses={200: _ok(ScimGroup), **_READ},
    dependencies=_scim(Permission.USERS_READ),
)
async def get_scim_group(
    group_id: str, directory: DirectoryDep, returned: _GROUP_RETURNED
) -> Response:
    """One group of the account and its members."""
    group = await service.get_group(directory, group_id)
    return _json(_dump(group, Context.RESOURCE_QUERY_RESPONSE, returned))


@router.put(
    "/Groups/{group_id}",
    responses={200: _ok(ScimGroup, "The group as stored"), **_WRITE},
    dependencies=_scim(Permission.USERS_WRITE),
)
async def replace_scim_group(
    group_id: str, directory: DirectoryDep, payload: _PAYLOAD, returned: _GROUP_RETURNED
) -> Response:
    """Replace a group's name, ``externalId`` and members; members who join or leave a
    mapped group get the role their groups give."""
    resource = _read(Group, payload, Context.RESOURCE_REPLACEMENT_REQUEST)
    group = await service.replace_group(directory, group_id, resource)
    return _json(_dump(group, Context.RESOURCE_REPLACEMENT_RESPONSE, returned))


@router.patch(
    "/Groups/{group_id}",
    responses={200: _ok(ScimGroup, "The group as stored"), **_WRITE},
    dependencies=_scim(Permission.USERS_WRITE),
)
async def patch_scim_group(
    group_id: str, directory: DirectoryDep, payload: _PAYLOAD, returned: _GROUP_RETURNED
) -> Response:
    """Rename a group or add, remove and replace members (Okta's and Entra ID's forms): a
    person's role is the highest of their mapped groups', one who leaves their last mapped
    group becomes a Member; the last Owner stays one (``mutability``), and a group mapped to
    Owner changes only with an Owner's token (403)."""
    patch = _read(PatchOp[Group], payload, Context.RESOURCE_PATCH_REQUEST)
    group = await service.patch_group(directory, group_id, patch)
    return _json(_dump(group, Context.RESOURCE_PATCH_RESPONSE, returned))


@router.delete(
    "/Groups/{group_id}",
    status_code=204,
    responses=scim_responses(400, 401, 403, 404, 429, 503),
    dependencies=_scim(Permission.USERS_WRITE),
)
async def delete_scim_group(group_id: str, directory: DirectoryDep) -> Response:
    """Delete a group: its members keep the highest role of their other mapped groups, or
    become Members when it was their last."""
    await service.delete_group(directory, group_id)
    return Response(status_code=204)


# Not in the contract: it exists to answer RFC 7644's 501 to clients that try it.
@router.post("/.search", include_in_schema=False)
async def search_all() -> Response:
    """Searching every resource type at once (RFC 7644 3.4.3) is not offered (501)."""
    raise SearchNotImplemented()


@router.get("/{path:path}", include_in_schema=False)
async def unknown_scim_path(path: str) -> Response:
    """Any other path under the base: a SCIM 404."""
    raise ResourceNotFound(f"No endpoint /{path}")
