"""SCIM provisioning rules (README "Directory sync (SCIM)"; RFC 7644 3): users and groups
created, read, listed, replaced, patched and deleted by the account's directory; the role a
group gives is the account's choice (``api.identity.directory.groups``).

What a directory user is in the console:
- their email is the primary email the directory sends (else the first), at one of the
  account's verified domains (a directory speaks for its company's addresses only), never
  one another user holds (an answer that cannot tell whether the holder is of another
  account: every address outside the account's verified domains is refused first, whoever
  holds it);
- a change of that email (a rename, as Okta and Entra ID send it) follows everywhere: the
  console's user, the audit log and, for a password user, the pool user's ``email`` (verified:
  the address is at the account's verified domain). Their Cognito username stays the address
  they were created with (a username cannot change); password sign-in resolves an email to
  it (``api.identity.sign_in``);
- an account that requires single sign-on gets a Pending user with no pool user: their first
  sign-in through the account's SSO binds them (``api.identity.sign_in``), with no join step; an
  account that uses email and password invites them (SPEC's invite flow: a temporary password
  by email), Pending until they sign in;
- ``active`` false turns their access off at once (the sign-in policy of every request,
  ``api.principal.principal``), true turns it back on; DELETE removes them as User Management's
  Delete does;
- a user the directory did not create is taken over by a create with their email;
- every change is recorded in the audit log as 'Directory sync'.
"""

from __future__ import annotations

import functools
import string
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
from scim2_models import (
    Context,
    Group,
    GroupMember,
    ListResponse,
    Meta,
    PatchOp,
    PatchOperation,
)
from scim2_models import Email as CoreEmail
from sqlalchemy import ColumnElement, true
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import CognitoClient, CognitoError, CognitoUnavailable
from api.audit import AuditAction, AuditTrail, changed
from api.identity.cognito_errors import cognito_errors
from api.identity.directory import groups, repository
from api.identity.directory.errors import (
    InvalidValue,
    Mutability,
    ResourceNotFound,
    Uniqueness,
)
from api.identity.directory.filters import USER_NAME, group_condition, user_condition
from api.identity.directory.resources import MAX_RESULTS, POLICY, Email, Name
from api.identity.directory.resources import User as ScimUser
from api.identity.membership import service as membership
from api.identity.membership.errors import LastOwnerRequired, LastUserRequired
from api.identity.membership.pool_users import PoolUserLedger
from api.identity.users.service import add_invited_user
from api.kernel.db import undo_on_rollback
from api.kernel.emails import email_domain, is_valid_email, normalize_email
from api.kernel.errors import EmailInUse
from api.models import Account, AuthType, DirectoryGroup, Role, User
from api.principal.sessions import lift_removal

_NAME_MAX = 100  # user.first_name / last_name

EMAIL_IN_USE = "This email address is already in use"

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class Directory:
    """What a SCIM request works with: its transaction, Cognito, the audit log (actor
    'Directory sync'), the token's account and the authority it acts with (its creator's
    current role: ``api.identity.membership``), the service's base URL (``meta.location``), how
    long an invitation stays Pending, the invitation email's count (its recipient's daily cap
    and the account's invitations per hour, ``count_invitation``: raises RateLimited), the
    ledger of pool users being created (``api.identity.membership.pool_users``) and whether the
    pool is the
    development stand-in."""

    db: AsyncSession
    cognito: CognitoClient
    audit: AuditTrail
    account_id: uuid.UUID
    acting: membership.Acting
    base_url: str
    invitation_validity: timedelta
    count_invitation: Callable[[str], Awaitable[None]]
    pool_users: PoolUserLedger


def _parse_id(resource_id: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(resource_id)
    except ValueError:
        return None


def to_resource(user: User, base_url: str) -> ScimUser:
    """``user`` as the SCIM service shows it: what the directory set (``userName``,
    ``displayName``, ``emails``), or for a user it does not manage the console's email; the
    names, ``active`` and ``externalId`` from the console's own columns."""
    attributes = user.directory_attributes or {}
    emails = attributes.get("emails")
    return ScimUser(
        id=str(user.id),
        external_id=user.external_id,
        user_name=attributes.get("userName", user.email),
        name=(
            Name(given_name=user.first_name or None, family_name=user.last_name or None)
            if user.first_name or user.last_name
            else None
        ),
        display_name=attributes.get("displayName"),
        # Unassigned once the directory removed it (the user is then active).
        active=(
            user.deactivated_at is None
            if user.directory_attributes is None or "active" in attributes
            else None
        ),
        emails=(
            [Email.model_validate(email) for email in emails]
            if emails is not None
            else [Email(value=user.email, type=CoreEmail.Type.work, primary=True)]
        ),
        meta=Meta(
            resource_type="User",
            created=user.created_at,
            location=f"{base_url}/Users/{user.id}",
        ),
    )


def _page(start_index: int | None, count: int | None) -> tuple[int, int]:
    """(offset, limit) of RFC 7644 3.4.2.4's 1-based ``startIndex`` (below 1: 1) and ``count``
    (negative: 0; above :data:`MAX_RESULTS` or absent: that)."""
    start = max(start_index or 1, 1)
    limit = MAX_RESULTS if count is None else min(max(count, 0), MAX_RESULTS)
    return start - 1, limit


async def list_users(
    directory: Directory, *, filter_: str | None, start_index: int | None, count: int | None
) -> ListResponse[ScimUser]:
    """A page of the account's users meeting ``filter_`` (RFC 7644 3.4.2).

    Raises: InvalidFilter.
    """
    condition: ColumnElement[bool] = user_condition(filter_) if filter_ else true()
    offset, limit = _page(start_index, count)
    total = await repository.count_users(directory.db, directory.account_id, condition)
    users = (
        await repository.list_users(
            directory.db, directory.account_id, condition, offset=offset, limit=limit
        )
        if limit
        else []
    )
    return ListResponse[ScimUser](
        total_results=total,
        start_index=offset + 1,
        items_per_page=len(users),
        resources=[to_resource(user, directory.base_url) for user in users],
    )


async def _user(directory: Directory, resource_id: str, *, for_update: bool = False) -> User:
    user_id = _parse_id(resource_id)
    user = (
        await repository.user_in_account(
            directory.db, directory.account_id, user_id, for_update=for_update
        )
        if user_id
        else None
    )
    if user is None:
        raise ResourceNotFound(f"No user {resource_id}")
    return user


async def get_user(directory: Directory, resource_id: str) -> ScimUser:
    """The user ``resource_id`` of the token's account. Raises ResourceNotFound."""
    return to_resource(await _user(directory, resource_id), directory.base_url)


def _sign_in_email(resource: ScimUser) -> str:
    """The address the person signs in with: the primary email, else the first.

    Raises: InvalidValue (none, or not an email address)."""
    emails = [email for email in resource.emails or [] if email.value]
    chosen = next((email for email in emails if email.primary), emails[0] if emails else None)
    if chosen is None or chosen.value is None:
        raise InvalidValue("emails must hold the address the person signs in with")
    email = normalize_email(chosen.value)
    if not is_valid_email(email):
        raise InvalidValue(f"{chosen.value!r} is not an email address")
    return email


def _names(resource: ScimUser) -> tuple[str, str]:
    name = resource.name or Name()
    first, last = (name.given_name or "").strip(), (name.family_name or "").strip()
    if len(first) > _NAME_MAX or len(last) > _NAME_MAX:
        raise InvalidValue(f"name.givenName and name.familyName hold up to {_NAME_MAX} characters")
    return first, last


# What the console keeps of a directory's user as sent; ``active`` only as whether the
# directory set it (its value is ``deactivated_at``), so a removed ``active`` reads unassigned.
_KEPT = ("userName", "displayName", "emails", "active")


def _directory_attributes(resource: ScimUser) -> dict[str, Any]:
    """What the console keeps of ``resource`` beyond its own columns, as JSON."""
    dumped = resource.model_dump(
        scim_ctx=Context.DEFAULT, include={"user_name", "display_name", "emails", "active"}
    )
    return {key: dumped[key] for key in _KEPT if key in dumped}


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _keeps_user_name(user: User, user_name: str) -> bool:
    """Whether ``user_name`` is the userName ``user`` already holds in the unique index
    (``uq_user_directory_user_name``), in any case: nobody else can hold it then, so
    :func:`_check_user_name` (a query the index cannot serve) is not needed. Only the userName
    the directory stored counts, not the email a user it does not manage reads as theirs (the
    index does not cover it), and only ASCII case (PostgreSQL's lower() under the C collation
    folds no other letter)."""
    stored = (user.directory_attributes or {}).get("userName")
    return isinstance(stored, str) and (
        stored.translate(_ASCII_LOWER) == user_name.translate(_ASCII_LOWER)
    )


async def _check_user_name(directory: Directory, user_name: str, user: User | None) -> None:
    holder = await repository.user_with_user_name(
        directory.db, directory.account_id, user_name, USER_NAME
    )
    if holder is not None and (user is None or holder.id != user.id):
        raise Uniqueness(f"The userName {user_name!r} is already in use")


async def _set_active(directory: Directory, user: User, active: bool) -> None:
    """Turn the user's access off or back on (``api.identity.membership.service.set_active``).

    Raises: Forbidden (the token's authority may not manage the user), Mutability (the last
    Owner)."""
    try:
        await membership.set_active(
            directory.db, acting=directory.acting, audit=directory.audit, user=user, active=active
        )
    except LastOwnerRequired as exc:
        raise Mutability(exc.message) from exc


async def _require_account_domain(directory: Directory, email: str) -> None:
    """Refuse ``email`` unless it is at one of the account's verified domains (README
    "Directory sync (SCIM)"); the answer is the same whoever holds the address, if anyone.

    Raises: InvalidValue."""
    domains = await repository.verified_domains(directory.db, directory.account_id)
    if not domains:
        raise InvalidValue(
            "The account has no verified domain: verify your company's domain in User "
            "Management (Single sign-on, Domains) first; the directory provisions people at "
            "the account's verified domains only"
        )
    if email_domain(email) not in domains:
        raise InvalidValue(
            "The email must be at one of the account's verified domains: " + ", ".join(domains)
        )


async def _require_free(directory: Directory, email: str, user: User | None) -> None:
    """Refuse ``email`` when a user of any account other than ``user`` holds it (as their
    email or as a password user's sign-in name); call it after
    :func:`_require_account_domain`, so only an address of the account's own domains is ever
    looked up.

    Raises: Uniqueness."""
    if await repository.address_in_use(directory.db, email, user.id if user else None):
        raise Uniqueness(EMAIL_IN_USE)


async def _rename_pool_user(directory: Directory, user: User, before: str) -> None:
    """Give a password user's pool user the new ``email`` (verified: the directory vouches
    for an address of the account's verified domain; Cognito applies an email update at once
    when ``email_verified`` is set true in the same AdminUpdateUserAttributes call, even with
    ``AttributesRequireVerificationBeforeUpdate``), their username unchanged; put ``before``
    back if the request's transaction does not commit.

    Raises: ProviderRefused / VendorUnavailable (the request fails, nothing is kept)."""
    if user.auth_type is not AuthType.EMAIL or user.identity_id is None:
        return  # a federated user's email is their provider's; no pool user yet: nothing
    username = user.identity_id
    async with cognito_errors():
        await directory.cognito.admin_update_user_attributes(
            username, {"email": user.email, "email_verified": "true"}
        )
    undo_on_rollback(
        directory.db, functools.partial(_restore_pool_email, directory.cognito, username, before)
    )


async def _restore_pool_email(cognito: CognitoClient, username: str, email: str) -> None:
    try:
        await cognito.admin_update_user_attributes(
            username, {"email": email, "email_verified": "true"}
        )
    except (CognitoError, CognitoUnavailable):
        log.exception("scim_rename_undo_failed", username=username)


async def _apply(directory: Directory, user: User, resource: ScimUser) -> None:
    """Make ``user`` what ``resource`` says (names, email, ``externalId``, the directory's
    attributes, ``active``), recording what changed, all or nothing. A new email is applied
    to the user's row and, for a password user, to their pool user's ``email`` (last, once
    everything else held).

    Raises: Forbidden (the token's authority may not manage the user), InvalidValue (a new
    email outside the account's verified domains), Uniqueness (userName or email held by
    another user), Mutability (deactivating the last Owner), ProviderRefused /
    VendorUnavailable (Cognito).
    """
    directory.acting.require_may_manage(user)
    first, last = _names(resource)
    email = _sign_in_email(resource)
    user_name = resource.user_name or ""
    if not user_name.strip():
        raise InvalidValue("userName is required")
    if not _keeps_user_name(user, user_name):
        await _check_user_name(directory, user_name, user)
    before = user.email
    edits = changed(
        first_name=(user.first_name, first),
        last_name=(user.last_name, last),
        email=(user.email, email),
        external_id=(user.external_id, resource.external_id),
    )
    if "email" in edits:
        await _require_account_domain(directory, email)
        await _require_free(directory, email, user)
    if edits:
        await directory.audit.record(AuditAction.USER_EDITED, membership.target(user), edits)
    user.first_name, user.last_name, user.email = first, last, email
    user.external_id = resource.external_id
    user.directory_attributes = _directory_attributes(resource)
    if "email" in edits:
        user.email_verified = True  # an address of the account's verified domain
    await _set_active(directory, user, resource.active is not False)
    try:
        await directory.db.flush()
    except IntegrityError as exc:
        # The unique indexes: another request took the email or userName meanwhile.
        raise Uniqueness(EMAIL_IN_USE if "email" in edits else None) from exc
    if "email" in edits:
        await _rename_pool_user(directory, user, before)


async def create_user(directory: Directory, resource: ScimUser) -> ScimUser:
    """Provision ``resource`` in the token's account, or take over the account's existing
    user of its email (a user the directory did not create); returns the user as stored.

    A new user is a Member until a group mapped to a role says otherwise. With single sign-on
    required they wait for their first sign-in through it; otherwise they are invited
    (temporary password emailed, counted against the recipient's daily cap and the account's
    invitations per hour). Two requests racing for one address make one user: the unique
    email index decides, and the other answers 409.

    Raises:
        InvalidValue: no usable email, one outside the account's verified domains (whoever
            holds it), names too long.
        Uniqueness: the userName is taken in the account; the email is held by a user the
            directory already manages here, or by any other user (of this account's domain:
            the same answer for every holder).
        RateLimited: the recipient's invitations today, or the account's this hour.
        ProviderRefused / VendorUnavailable: Cognito refused or is unreachable.
    """
    db = directory.db
    email = _sign_in_email(resource)
    await _require_account_domain(directory, email)
    existing = await repository.user_with_email(db, email)
    if existing is not None:
        if existing.account_id != directory.account_id or existing.directory_attributes:
            raise Uniqueness(EMAIL_IN_USE)
        directory.acting.require_may_manage(existing)
        await directory.audit.record(
            AuditAction.USER_PROVISIONED,
            membership.target(existing),
            {"managedBy": (None, "directory")},
        )
        await _apply(directory, existing, resource)
        return to_resource(existing, directory.base_url)
    await _require_free(directory, email, None)
    first, last = _names(resource)
    if resource.user_name:
        await _check_user_name(directory, resource.user_name, None)
    await lift_removal(db, directory.account_id, email)
    account = await db.get_one(Account, directory.account_id)
    user = User(
        account_id=directory.account_id,
        first_name=first,
        last_name=last,
        email=email,
        role=Role.MEMBER,
        external_id=resource.external_id,
        directory_attributes=_directory_attributes(resource),
    )
    try:
        if account.required_auth_type is not None:
            # They sign in through the account's single sign-on: no pool user until they do.
            user.auth_type = account.required_auth_type
            user.invited_at = datetime.now(UTC)
            await membership.add(
                db,
                acting=directory.acting,
                audit=directory.audit,
                user=user,
                action=AuditAction.USER_PROVISIONED,
                changes={"email": (None, user.email), "role": (None, user.role.value)},
            )
        else:
            await directory.count_invitation(email)
            await add_invited_user(
                db=db,
                cognito=directory.cognito,
                pool_users=directory.pool_users,
                user=user,
                validity=directory.invitation_validity,
                acting=directory.acting,
                audit=directory.audit,
                action=AuditAction.USER_PROVISIONED,
            )
    except EmailInUse as exc:  # a racing request took the address (or its pool username)
        raise Uniqueness(EMAIL_IN_USE) from exc
    if resource.active is False:
        await _set_active(directory, user, False)
        await db.flush()
    return to_resource(user, directory.base_url)


async def replace_user(directory: Directory, resource_id: str, resource: ScimUser) -> ScimUser:
    """PUT: ``resource`` becomes the user (RFC 7644 3.5.1). Raises: ResourceNotFound, and as
    :func:`_apply`."""
    user = await _user(directory, resource_id, for_update=True)
    await _apply(directory, user, resource)
    return to_resource(user, directory.base_url)


async def patch_user(directory: Directory, resource_id: str, patch: PatchOp[ScimUser]) -> ScimUser:
    """PATCH: the operations applied, in order and as a whole, to the user as the service
    shows them (RFC 7644 3.5.2; scim2-models applies them, Okta's and Entra ID's forms
    included), then the result made the user.

    Raises: ResourceNotFound, SCIMException (an operation the resource refuses: noTarget,
    mutability, invalidValue, invalidPath), and as :func:`_apply`.
    """
    user = await _user(directory, resource_id, for_update=True)
    resource = to_resource(user, directory.base_url)
    patch.patch(resource, scim_policy=POLICY)
    await _apply(directory, user, resource)
    return to_resource(user, directory.base_url)


async def delete_user(directory: Directory, resource_id: str) -> None:
    """DELETE: remove the user from the account, as User Management's Delete does (their pool
    user goes, the removal is remembered, their sessions end with the row).

    Raises: ResourceNotFound; Forbidden (the token's authority may not remove the user);
    Mutability (the account's last user or last Owner); VendorUnavailable.
    """
    user = await _user(directory, resource_id, for_update=True)
    try:
        await membership.remove(
            directory.db,
            cognito=directory.cognito,
            acting=directory.acting,
            audit=directory.audit,
            user=user,
        )
    except (LastOwnerRequired, LastUserRequired) as exc:
        raise Mutability(exc.message) from exc


# Groups: the directory's own, as it sends them (README "Directory sync (SCIM)"); the role a
# group gives is set in User Management and applied by ``api.identity.directory.groups``.

_GROUP_NAME_MAX = 255  # directory_group.display_name


def to_group(
    group: DirectoryGroup, members: Sequence[tuple[User, str | None]], base_url: str
) -> Group:
    """``group`` as the SCIM service shows it, with its members (users of the account, with
    their ``$ref``; their ``display`` as the directory sent it, else the console's name of the
    user, else their email)."""
    return Group(
        id=group.id,
        external_id=group.external_id,
        display_name=group.display_name,
        members=[
            GroupMember(
                value=str(user.id),
                ref=f"{base_url}/Users/{user.id}",
                display=display or f"{user.first_name} {user.last_name}".strip() or user.email,
                type="User",
            )
            for user, display in members
        ]
        or None,
        meta=Meta(
            resource_type="Group",
            created=group.created_at,
            location=f"{base_url}/Groups/{group.id}",
        ),
    )


async def _group(
    directory: Directory, group_id: str, *, for_update: bool = False
) -> DirectoryGroup:
    group = await repository.group_in_account(
        directory.db, directory.account_id, group_id, for_update=for_update
    )
    if group is None:
        raise ResourceNotFound(f"No group {group_id}")
    return group


async def _resource(directory: Directory, group: DirectoryGroup) -> Group:
    members = await repository.members_of(directory.db, directory.account_id, [group.id])
    return to_group(group, members[group.id], directory.base_url)


async def list_groups(
    directory: Directory, *, filter_: str | None, start_index: int | None, count: int | None
) -> ListResponse[Group]:
    """A page of the account's groups meeting ``filter_`` (``displayName eq "..."``,
    ``externalId eq``, ``members[value eq "<id>"]``, ...; RFC 7644 3.4.2), paged like users.

    Raises: InvalidFilter.
    """
    condition: ColumnElement[bool] = group_condition(filter_) if filter_ else true()
    offset, limit = _page(start_index, count)
    db, account_id = directory.db, directory.account_id
    total = await repository.count_groups(db, account_id, condition)
    groups = (
        await repository.list_groups(db, account_id, condition, offset=offset, limit=limit)
        if limit
        else []
    )
    members = await repository.members_of(db, account_id, [group.id for group in groups])
    return ListResponse[Group](
        total_results=total,
        start_index=offset + 1,
        items_per_page=len(groups),
        resources=[to_group(g, members[g.id], directory.base_url) for g in groups],
    )


async def get_group(directory: Directory, group_id: str) -> Group:
    """The account's group ``group_id`` with its members. Raises ResourceNotFound."""
    return await _resource(directory, await _group(directory, group_id))


def _group_name(resource: Group) -> str:
    name = (resource.display_name or "").strip()
    if not name:
        raise InvalidValue("displayName is required")
    if len(name) > _GROUP_NAME_MAX:
        raise InvalidValue(f"displayName holds up to {_GROUP_NAME_MAX} characters")
    return name


async def _check_group_name(directory: Directory, name: str, group: DirectoryGroup | None) -> None:
    holder = await repository.group_named(directory.db, directory.account_id, name)
    if holder is not None and (group is None or holder.id != group.id):
        raise Uniqueness(f"A group named {name!r} exists")


async def _members(directory: Directory, resource: Group) -> dict[uuid.UUID, str | None]:
    """The users ``resource.members`` names, each a user of the account, with the ``display``
    sent for each (a member named twice: the last).

    Raises: InvalidValue (a value that is no user of the account: another account's user, a
    group, nothing)."""
    wanted: dict[uuid.UUID, str | None] = {}
    for member in resource.members or []:
        user_id = _parse_id(member.value or "")
        if user_id is None:
            raise InvalidValue("members must be ids of users of this account")
        wanted[user_id] = (member.display or "").strip()[:_GROUP_NAME_MAX] or None
    ids = sorted(wanted)
    users = await repository.users_in_account(directory.db, directory.account_id, ids)
    if len(users) != len(ids):
        raise InvalidValue("members must be ids of users of this account")
    return wanted


async def _set_members(
    directory: Directory, group: DirectoryGroup, wanted: dict[uuid.UUID, str | None]
) -> None:
    """Make ``wanted`` the members of ``group`` (with their ``display``) and, when the group
    gives a role, settle the roles of those who joined or left
    (``api.identity.directory.groups.settle_roles``, as the token).

    Raises: Forbidden, CannotChangeOwnRole, Mutability (the last Owner)."""
    db, account_id = directory.db, directory.account_id
    current = {
        user.id: display
        for user, display in (await repository.members_of(db, account_id, [group.id]))[group.id]
    }
    joined = {user_id: d for user_id, d in wanted.items() if user_id not in current}
    left = sorted(set(current) - set(wanted))
    for user_id, display in wanted.items():
        if user_id in current and current[user_id] != display:
            await repository.set_display(db, account_id, group.id, user_id, display)
    if not joined and not left:
        return
    before = await groups.mapped_role(db, account_id, [*joined, *left])
    await repository.add_members(db, account_id, group.id, joined)
    await repository.remove_members(db, account_id, group.id, left)
    if group.role is not None:
        await _settle(directory, before)


async def _settle(directory: Directory, before: dict[uuid.UUID, Role | None]) -> None:
    try:
        await groups.settle_roles(
            directory.db,
            acting=directory.acting,
            audit=directory.audit,
            account_id=directory.account_id,
            before=before,
        )
    except LastOwnerRequired as exc:
        raise Mutability(exc.message) from exc


async def _write_group(directory: Directory, group: DirectoryGroup, resource: Group) -> Group:
    """Make ``group`` what ``resource`` says (name, ``externalId``, members), recording a
    rename. A group mapped to Owner is changed only with an Owner's authority.

    Raises: Forbidden, InvalidValue, Uniqueness (another group's name), Mutability (the last
    Owner), CannotChangeOwnRole."""
    groups.require_may_change(directory.acting, group.role)
    name = _group_name(resource)
    wanted = await _members(directory, resource)
    if name != group.display_name:
        await _check_group_name(directory, name, group)
        await directory.audit.record(
            AuditAction.DIRECTORY_GROUP_RENAMED,
            groups.target(group),
            {"displayName": (group.display_name, name)},
        )
        group.display_name = name
    group.external_id = resource.external_id
    await _flush_group(directory)
    await _set_members(directory, group, wanted)
    return await _resource(directory, group)


async def _flush_group(directory: Directory) -> None:
    try:
        await directory.db.flush()
    except IntegrityError as exc:  # a racing request took the name
        raise Uniqueness("A group of that name exists") from exc


async def create_group(directory: Directory, resource: Group) -> Group:
    """POST: a new group of the account, as the directory names it (Okta's Group Push, Entra
    ID's group provisioning), with its members; it gives no role until the account maps it.

    Raises: InvalidValue (no name, members that are no users of the account), Uniqueness
    (a group of that name, in any case)."""
    name = _group_name(resource)
    await _check_group_name(directory, name, None)
    wanted = await _members(directory, resource)
    group = DirectoryGroup(
        account_id=directory.account_id,
        id=str(uuid.uuid4()),
        display_name=name,
        external_id=resource.external_id,
    )
    directory.db.add(group)
    await _flush_group(directory)
    await directory.db.refresh(group)
    await directory.audit.record(AuditAction.DIRECTORY_GROUP_CREATED, groups.target(group))
    await repository.add_members(directory.db, directory.account_id, group.id, wanted)
    return await _resource(directory, group)


async def patch_group(directory: Directory, group_id: str, patch: PatchOp[Group]) -> Group:
    """PATCH: its name (Okta's replace with a value, Entra ID's path ``displayName``),
    ``externalId`` and members (add, remove, replace, in Okta's and Entra ID's forms), applied
    as a whole.

    Raises: ResourceNotFound, SCIMException, and as :func:`_write_group`.
    """
    group = await _group(directory, group_id, for_update=True)
    patched = (await _resource(directory, group)).model_copy(deep=True)
    for operation in patch.operations or []:
        if operation.op is PatchOperation.Op.remove and isinstance(operation.value, list):
            # Entra ID removes members with {"$ref": null, "value": id}: a null sub-attribute
            # selects nothing (the members have a $ref), it is only not sent.
            operation.value = [
                {key: item for key, item in entry.items() if item is not None}
                if isinstance(entry, dict)
                else entry
                for entry in operation.value
            ]
    patch.patch(patched, scim_policy=POLICY)
    return await _write_group(directory, group, patched)


async def replace_group(directory: Directory, group_id: str, resource: Group) -> Group:
    """PUT: ``resource`` becomes the group (name, ``externalId``, members). Raises as
    :func:`patch_group`."""
    group = await _group(directory, group_id, for_update=True)
    return await _write_group(directory, group, resource)


async def delete_group(directory: Directory, group_id: str) -> None:
    """DELETE: the group goes; a member it gave a role keeps the highest role of their other
    mapped groups, or becomes a Member.

    Raises: ResourceNotFound, Forbidden (a group mapped to Owner, without an Owner's
    authority; a member the token may not manage), Mutability (the last Owner)."""
    group = await _group(directory, group_id, for_update=True)
    groups.require_may_change(directory.acting, group.role)
    members = (await repository.members_of(directory.db, directory.account_id, [group.id]))[
        group.id
    ]
    before = await groups.mapped_role(
        directory.db, directory.account_id, [user.id for user, _ in members]
    )
    await directory.audit.record(AuditAction.DIRECTORY_GROUP_DELETED, groups.target(group))
    await repository.delete_group(directory.db, directory.account_id, group.id)
    if group.role is not None:
        await _settle(directory, before)
