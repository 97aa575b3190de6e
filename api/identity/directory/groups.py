"""The roles a directory's groups give (README "Directory sync (SCIM)"): the one place the rule
lives, used by the SCIM service (a group's members change, it is deleted) and by User
Management (a group's role changes).

An account maps each group its directory sends to a role in the console, Owner, Admin,
Member, or none (``directory_group.role``; only an Owner maps a group to Owner, or changes the
role of a group mapped to Owner). Then:
- a person's role is the highest role of their mapped groups;
- a person in no mapped group keeps the role they have (given in User Management, or by an
  invitation), except one who has just left their last mapped group (taken out of it, the group
  deleted or unmapped): they become a Member, so a directory that takes someone out of its
  admins group takes the Admin role with it;
- each change is ``api.identity.membership.service.change_role`` with the acting principal (the SCIM
  token's authority, or the User Management user mapping the group), under its rules: nobody
  grants above their own role, only an Owner moves an Owner, nobody changes their own role,
  and the account keeps an Owner. One refused change refuses the whole request.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession

from api.audit import AuditAction, AuditTrail, Target
from api.identity.directory import repository
from api.identity.directory.schemas import DirectoryGroups, DirectoryGroupView
from api.identity.membership import service as membership
from api.kernel.errors import NotFound
from api.models import DirectoryGroup, Role
from api.principal.errors import Forbidden
from api.principal.principal import Caller

RANK = {Role.MEMBER: 0, Role.ADMIN: 1, Role.OWNER: 2}
"""How roles compare: a person's role is the highest of their mapped groups'."""

OWNER_GROUP = "Only an Owner can map a group to Owner, or change a group mapped to Owner."
GROUP_NOT_FOUND = "Directory group not found"


def highest(roles: Iterable[Role]) -> Role | None:
    """The highest of ``roles`` (None: there are none)."""
    return max(roles, key=RANK.__getitem__, default=None)


async def mapped_role(
    db: AsyncSession, account_id: uuid.UUID, user_ids: Iterable[uuid.UUID]
) -> dict[uuid.UUID, Role | None]:
    """Each of ``user_ids``'s highest mapped role now (None: in no mapped group)."""
    ids = list(user_ids)
    roles = await repository.mapped_roles(db, account_id, ids) if ids else {}
    return {user_id: highest(roles.get(user_id, ())) for user_id in ids}


async def settle_roles(
    db: AsyncSession,
    *,
    acting: membership.Acting,
    audit: AuditTrail,
    account_id: uuid.UUID,
    before: dict[uuid.UUID, Role | None],
) -> None:
    """Give the users of ``before`` (user id: their highest mapped role before the change the
    caller just made, :func:`mapped_role`) the role their groups give now, as the module's
    rule says, through ``change_role`` as ``acting``; promotions first, so the last-Owner
    guard sees a new Owner before an old one is demoted. The users' rows are locked.

    Raises: as ``api.identity.membership.service.change_role`` (Forbidden, CannotChangeOwnRole,
    LastOwnerRequired).
    """
    if not before:
        return
    after = await mapped_role(db, account_id, before)
    changes: list[tuple[int, uuid.UUID, Role]] = []
    users = {
        user.id: user for user in await repository.users_in_account(db, account_id, list(before))
    }
    for user_id, user in users.items():
        role = after[user_id]
        if role is None:
            if before[user_id] is None:
                continue  # never governed by a mapped group: their role stays theirs
            role = Role.MEMBER  # left their last mapped group
        if role is not user.role:
            changes.append((RANK[role] - RANK[user.role], user_id, role))
    for _, user_id, role in sorted(changes, key=lambda change: (-change[0], change[1])):
        await membership.change_role(db, acting=acting, audit=audit, user=users[user_id], role=role)
        await db.flush()  # the next change's last-Owner guard reads the rows


def require_may_change(acting: membership.Acting, *roles: Role | None) -> None:
    """Raise Forbidden unless ``acting`` may change a group mapped to each of ``roles`` (or
    map one to it): a group mapped to Owner is an Owner's (``api.principal.roles``, through the
    acting principal's right to grant Owner)."""
    if Role.OWNER in roles:
        try:
            acting.require_may_grant(Role.OWNER)
        except Forbidden as exc:
            raise Forbidden(OWNER_GROUP) from exc


def target(group: DirectoryGroup) -> Target:
    """``group`` as the audit log names it."""
    return Target("directory_group", group.id, group.display_name)


def view(group: DirectoryGroup, members: int) -> DirectoryGroupView:
    """``group`` as User Management lists it."""
    return DirectoryGroupView(
        id=group.id,
        display_name=group.display_name,
        external_id=group.external_id,
        role=group.role,
        members=members,
    )


async def directory_groups(*, db: AsyncSession, account_id: uuid.UUID) -> DirectoryGroups:
    """The account's directory groups by name, each with its role and number of members."""
    rows = await repository.groups_with_counts(db, account_id)
    return DirectoryGroups(groups=[view(group, count) for group, count in rows])


async def map_group(
    *, db: AsyncSession, caller: Caller, audit: AuditTrail, group_id: str, role: Role | None
) -> DirectoryGroupView:
    """Map the caller's account's group ``group_id`` to ``role`` (None: no role), recorded
    in the audit log, and give its members the role their groups give now (:func:`settle_roles`
    as the caller), all in the request's transaction.

    Raises:
        NotFound: no such group in the caller's account.
        Forbidden: an Admin mapping to Owner, or changing a group mapped to Owner; a member the
            caller may not manage.
        CannotChangeOwnRole: the change would change the caller's own role.
        LastOwnerRequired: the account's only Owner would stop being one.
    """
    group = await repository.group_in_account(db, caller.account_id, group_id, for_update=True)
    if group is None:
        raise NotFound(GROUP_NOT_FOUND)
    acting = membership.by_user(caller)
    members = await repository.members_of(db, caller.account_id, [group.id])
    count = len(members[group.id])
    if role is group.role:
        return view(group, count)
    require_may_change(acting, group.role, role)
    before = await mapped_role(db, caller.account_id, [user.id for user, _ in members[group.id]])
    await audit.record(
        AuditAction.DIRECTORY_GROUP_ROLE_CHANGED,
        target(group),
        {"role": (group.role.value if group.role else None, role.value if role else None)},
    )
    group.role = role
    await db.flush()
    await settle_roles(db, acting=acting, audit=audit, account_id=caller.account_id, before=before)
    return view(group, count)
