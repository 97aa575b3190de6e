"""SCIM filters (RFC 7644 3.4.2.2) as SQL conditions on ``user`` and ``directory_group``:
scim2-models parses and checks the filter (``ScimFilter``), and :class:`UserFilter` (or
:class:`GroupFilter`) walks its tree into SQLAlchemy.

Groups: ``id`` and ``externalId`` (case-exact), ``displayName``, ``members`` (its ``value``,
the member's user id: ``members[value eq "<id>"]``, ``members.value eq "<id>"``, ``members
pr``), with the same operators.

Users:
Attributes: ``id``, ``userName`` (the directory's, else the email), ``externalId``,
``displayName``, ``name.givenName``, ``name.familyName``, ``active``, ``emails`` (its
``value`` and ``type``, with or without a value selection: ``emails[value eq "x"]``,
``emails.value eq "x"``). Operators: ``eq``, ``ne``, ``co``, ``sw``, ``ew``, ``pr``, ``and``,
``or``, ``not``. Strings compare case-insensitively except ``externalId`` and ``id``
(RFC 7643 ``caseExact``). Anything else is refused with ``invalidFilter``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from scim2_models import Group as ScimGroup
from scim2_models import InvalidFilterException, ScimFilter
from scim2_models.path import (
    AttrPath,
    CompareOperator,
    Comparison,
    FilterNode,
    FilterVisitor,
    LogicalExpr,
    LogicalOperator,
    Not,
    Present,
    ValuePath,
)
from sqlalchemy import (
    Boolean,
    ColumnElement,
    String,
    and_,
    cast,
    column,
    exists,
    false,
    func,
    not_,
    or_,
    select,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB

from api.identity.directory.errors import InvalidFilter
from api.identity.directory.resources import User as ScimUser
from api.models import DirectoryGroup, DirectoryGroupMember, User

# What ``userName`` and ``emails`` read for a user the directory does not manage.
USER_NAME = func.coalesce(User.directory_attributes["userName"].astext, User.email)
_EMAILS = func.coalesce(
    User.directory_attributes["emails"],
    func.jsonb_build_array(
        func.jsonb_build_object("value", User.email, "type", "work", "primary", True)
    ),
)
_DISPLAY_NAME = User.directory_attributes["displayName"].astext

# Case-insensitive strings (RFC 7643 caseExact false), by attribute path.
_STRINGS: dict[str, ColumnElement[str]] = {
    "username": USER_NAME,
    "displayname": _DISPLAY_NAME,
    "name.givenname": func.nullif(User.first_name, ""),
    "name.familyname": func.nullif(User.last_name, ""),
}
_EXACT: dict[str, Any] = {
    "externalid": User.external_id,
    "id": cast(User.id, String),
}
_EMAIL_FIELDS = {"value", "type"}


def _key(path: AttrPath) -> str:
    name = path.attr.lower()
    return f"{name}.{path.sub_attr.lower()}" if path.sub_attr else name


def _compare(column: ColumnElement[Any], op: CompareOperator, value: str) -> ColumnElement[bool]:
    operations: dict[CompareOperator, Callable[[], ColumnElement[bool]]] = {
        CompareOperator.eq: lambda: column == value,
        CompareOperator.ne: lambda: or_(column != value, column.is_(None)),
        CompareOperator.co: lambda: column.contains(value, autoescape=True),
        CompareOperator.sw: lambda: column.startswith(value, autoescape=True),
        CompareOperator.ew: lambda: column.endswith(value, autoescape=True),
    }
    if op not in operations:
        raise InvalidFilter(f"The operator {op.value} is not supported here")
    return operations[op]()


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidFilter("Compare this attribute with a string")
    return value


class UserFilter(FilterVisitor[ColumnElement[bool]]):
    """A parsed filter as one SQL condition on ``user`` (rows of any account: the caller adds
    the account's own condition)."""

    def visit_logical_expr(self, node: LogicalExpr) -> ColumnElement[bool]:
        terms = [self.visit(term) for term in node.terms]
        return and_(*terms) if node.op == LogicalOperator.and_ else or_(*terms)

    def visit_not(self, node: Not) -> ColumnElement[bool]:
        return not_(self.visit(node.expr))

    def visit_present(self, node: Present) -> ColumnElement[bool]:
        key = _key(node.attr_path)
        if key in _STRINGS:
            return func.coalesce(_STRINGS[key], "") != ""
        if key in _EXACT:
            return func.coalesce(_EXACT[key], "") != ""
        if key == "active":
            return true()
        if key in ("emails", "emails.value"):
            return func.jsonb_array_length(_EMAILS) > 0
        raise InvalidFilter(f"Filtering on {node.attr_path} is not supported")

    def visit_comparison(self, node: Comparison) -> ColumnElement[bool]:
        key = _key(node.attr_path)
        if key in _STRINGS:
            return _compare(func.lower(_STRINGS[key]), node.op, _text(node.value).lower())
        if key in _EXACT:
            if key == "id" and node.op is CompareOperator.eq:
                return self._id(_text(node.value))
            return _compare(_EXACT[key], node.op, _text(node.value))
        if key == "active":
            if node.op not in (CompareOperator.eq, CompareOperator.ne):
                raise InvalidFilter("Compare active with eq or ne")
            active = User.deactivated_at.is_(None)
            return active if (node.value is True) == (node.op is CompareOperator.eq) else ~active
        if key in ("emails", "emails.value", "emails.type"):
            field = "type" if key == "emails.type" else "value"
            return self._any_email(Comparison(AttrPath(field), node.op, node.value))
        raise InvalidFilter(f"Filtering on {node.attr_path} is not supported")

    def visit_value_path(self, node: ValuePath) -> ColumnElement[bool]:
        if _key(node.attr_path) != "emails":
            raise InvalidFilter(f"Filtering on {node.attr_path} is not supported")
        return self._any_email(node.val_filter)

    @staticmethod
    def _id(value: str) -> ColumnElement[bool]:
        try:
            return User.id == uuid.UUID(value)
        except ValueError:
            return false()

    def _any_email(self, condition: FilterNode) -> ColumnElement[bool]:
        """Whether one of the user's emails meets ``condition`` (on its ``value``, ``type``
        and ``primary``)."""
        email = func.jsonb_array_elements(_EMAILS).table_valued(column("value", JSONB))
        element = email.c.value
        return exists(select(1).select_from(email).where(_EmailCondition(element).visit(condition)))


class _EmailCondition(FilterVisitor[ColumnElement[bool]]):
    """A filter on the sub-attributes of one email (a JSON object ``element``)."""

    def __init__(self, element: ColumnElement[object]) -> None:
        self.element = element

    def visit_logical_expr(self, node: LogicalExpr) -> ColumnElement[bool]:
        terms = [self.visit(term) for term in node.terms]
        return and_(*terms) if node.op == LogicalOperator.and_ else or_(*terms)

    def visit_not(self, node: Not) -> ColumnElement[bool]:
        return not_(self.visit(node.expr))

    def _field(self, path: AttrPath) -> str:
        field = path.attr.lower()
        if path.sub_attr or field not in (*_EMAIL_FIELDS, "primary"):
            raise InvalidFilter(f"Filtering emails on {path} is not supported")
        return field

    def visit_present(self, node: Present) -> ColumnElement[bool]:
        return self.element.op("?")(self._field(node.attr_path))

    def visit_comparison(self, node: Comparison) -> ColumnElement[bool]:
        field = self._field(node.attr_path)
        if field == "primary":
            flag = func.coalesce(cast(self.element.op("->>")("primary"), Boolean), False)
            wanted = node.value is True
            if node.op is CompareOperator.eq:
                return flag if wanted else ~flag
            if node.op is CompareOperator.ne:
                return ~flag if wanted else flag
            raise InvalidFilter("Compare primary with eq or ne")
        column = func.lower(self.element.op("->>")(field))
        return _compare(column, node.op, _text(node.value).lower())

    def visit_value_path(self, node: ValuePath) -> ColumnElement[bool]:
        raise InvalidFilter("A value selection inside a value selection is not supported")


def user_condition(expression: str) -> ColumnElement[bool]:
    """The SQL condition of the SCIM filter ``expression`` on ``user``.

    Raises:
        InvalidFilter: a filter that does not parse, or asks for what is not supported.
    """
    try:
        parsed = ScimFilter[ScimUser](expression)
    except (InvalidFilterException, ValueError) as exc:
        raise InvalidFilter(str(exc)) from exc
    return UserFilter().visit(parsed.ast)


_GROUP_STRINGS: dict[str, Any] = {"displayname": DirectoryGroup.display_name}
_GROUP_EXACT: dict[str, Any] = {
    "id": DirectoryGroup.id,
    "externalid": DirectoryGroup.external_id,
}
_MEMBER_VALUE = cast(DirectoryGroupMember.user_id, String)


class GroupFilter(FilterVisitor[ColumnElement[bool]]):
    """A parsed filter as one SQL condition on ``directory_group`` (rows of any account: the
    caller adds the account's own condition)."""

    def visit_logical_expr(self, node: LogicalExpr) -> ColumnElement[bool]:
        terms = [self.visit(term) for term in node.terms]
        return and_(*terms) if node.op == LogicalOperator.and_ else or_(*terms)

    def visit_not(self, node: Not) -> ColumnElement[bool]:
        return not_(self.visit(node.expr))

    def visit_present(self, node: Present) -> ColumnElement[bool]:
        key = _key(node.attr_path)
        if key in _GROUP_STRINGS:
            return func.coalesce(_GROUP_STRINGS[key], "") != ""
        if key in _GROUP_EXACT:
            return func.coalesce(_GROUP_EXACT[key], "") != ""
        if key in ("members", "members.value"):
            return self._any_member(true())
        raise InvalidFilter(f"Filtering on {node.attr_path} is not supported")

    def visit_comparison(self, node: Comparison) -> ColumnElement[bool]:
        key = _key(node.attr_path)
        if key in _GROUP_STRINGS:
            return _compare(func.lower(_GROUP_STRINGS[key]), node.op, _text(node.value).lower())
        if key in _GROUP_EXACT:
            return _compare(_GROUP_EXACT[key], node.op, _text(node.value))
        if key in ("members", "members.value"):
            return self._any_member(_compare(_MEMBER_VALUE, node.op, _text(node.value)))
        raise InvalidFilter(f"Filtering on {node.attr_path} is not supported")

    def visit_value_path(self, node: ValuePath) -> ColumnElement[bool]:
        if _key(node.attr_path) != "members":
            raise InvalidFilter(f"Filtering on {node.attr_path} is not supported")
        return self._any_member(_MemberCondition().visit(node.val_filter))

    @staticmethod
    def _any_member(condition: ColumnElement[bool]) -> ColumnElement[bool]:
        """Whether one of the group's members meets ``condition``."""
        return exists(
            select(1).where(
                DirectoryGroupMember.account_id == DirectoryGroup.account_id,
                DirectoryGroupMember.group_id == DirectoryGroup.id,
                condition,
            )
        )


class _MemberCondition(FilterVisitor[ColumnElement[bool]]):
    """A filter on the sub-attributes of one member: its ``value`` (the user's id)."""

    def visit_logical_expr(self, node: LogicalExpr) -> ColumnElement[bool]:
        terms = [self.visit(term) for term in node.terms]
        return and_(*terms) if node.op == LogicalOperator.and_ else or_(*terms)

    def visit_not(self, node: Not) -> ColumnElement[bool]:
        return not_(self.visit(node.expr))

    @staticmethod
    def _value(path: AttrPath) -> None:
        if path.sub_attr or path.attr.lower() != "value":
            raise InvalidFilter(f"Filtering members on {path} is not supported")

    def visit_present(self, node: Present) -> ColumnElement[bool]:
        self._value(node.attr_path)
        return true()

    def visit_comparison(self, node: Comparison) -> ColumnElement[bool]:
        self._value(node.attr_path)
        return _compare(_MEMBER_VALUE, node.op, _text(node.value))

    def visit_value_path(self, node: ValuePath) -> ColumnElement[bool]:
        raise InvalidFilter("A value selection inside a value selection is not supported")


def group_condition(expression: str) -> ColumnElement[bool]:
    """The SQL condition of the SCIM filter ``expression`` on ``directory_group``.

    Raises:
        InvalidFilter: a filter that does not parse, or asks for what is not supported.
    """
    try:
        parsed = ScimFilter[ScimGroup](expression)
    except (InvalidFilterException, ValueError) as exc:
        raise InvalidFilter(str(exc)) from exc
    return GroupFilter().visit(parsed.ast)
