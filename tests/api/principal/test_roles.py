"""Roles (SPEC 6), tested as an attacker would and driven by the contract: every operation of
``openapi.json`` names its permission (``x-permission``), and for each role every operation
answers allowed or 403 exactly as the one permission table (``api/principal/roles.py``) says.

The requests are built from the contract as a fuzzer would: the minimal valid body of the
operation's schema (required members only, each at its smallest valid value), required query
parameters, and path parameters naming a Member of the caller's account (``user_id``) or an id
nobody has. A refused call is 403 ``Forbidden`` with the message naming the role needed, and
leaves no trace (no audit event); an allowed one gets past the permission and the body's
validation (never 401, 403 or 422). The handbook's role table
(docs/admins/roles-and-invitations.md) is generated from the same table
(:func:`test_the_readme_role_table_is_the_permission_table`).
"""

from __future__ import annotations

import functools
import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import Phase, find, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from api.models import AuditEvent, Role
from api.principal.roles import (
    ADMIN_REQUIRED,
    DESCRIPTIONS,
    NOT_A_ROLES,
    OWNER_REQUIRED,
    ROLE_PERMISSIONS,
    TOKEN_SCOPES,
    Permission,
    holders,
)
from tests.api.conftest import MakeUser, SignedIn, unique_domain, unique_email

ROOT = Path(__file__).resolve().parents[3]
ROLES_PAGE = "docs/admins/roles-and-invitations.md"
CONTRACT: dict[str, Any] = json.loads((ROOT / "openapi.json").read_text())
METHODS = ("get", "put", "post", "delete", "patch")
OPERATIONS = [
    (method.upper(), path, operation)
    for path, item in sorted(CONTRACT["paths"].items())
    for method, operation in sorted(item.items())
    if method in METHODS
]
# Operations whose caller is a signed-in user of a role (not public, not the person's own
# sign-in, not an API key or a SCIM token).
ROLE_BOUND = [
    (method, path, operation)
    for method, path, operation in OPERATIONS
    if Permission(operation["x-permission"]) not in NOT_A_ROLES and not path.startswith("/scim/v2")
]


def test_every_operation_names_a_permission_its_security_agrees_with() -> None:
    assert len(OPERATIONS) > 80
    for method, path, operation in OPERATIONS:
        permission = Permission(operation["x-permission"])  # a known permission, or ValueError
        security = operation.get("security")
        if permission is Permission.PUBLIC:
            assert security in ([], [{}, {"HTTPBearer": []}]), (method, path)
        elif permission is Permission.API_KEY:
            assert security == [{"APIKeyHeader": []}], (method, path)
        elif path.startswith("/scim/v2"):
            assert security == [{"ScimToken": []}], (method, path)
            assert permission in {Permission.USERS_READ, Permission.USERS_WRITE}, (method, path)
        elif permission in TOKEN_SCOPES:  # a signed-in user, or an access token with the scope
            assert security == [{"HTTPBearer": []}, {"AccessToken": [permission.value]}], path
        else:
            assert security == [{"HTTPBearer": []}], (method, path)
        restricted = permission not in NOT_A_ROLES and holders(permission) != frozenset(Role)
        if restricted and not path.startswith("/scim/v2"):
            assert "403" in operation["responses"], (method, path)  # the refusal is declared


def test_every_role_bound_operation_is_a_write_or_a_deliberate_read() -> None:
    """A GET needs a permission every role holds unless the table says otherwise: the reads
    that are not everyone's are named here, so a new one is a decision, not an accident."""
    restricted_reads = {
        path
        for method, path, operation in ROLE_BOUND
        if method == "GET" and holders(Permission(operation["x-permission"])) != frozenset(Role)
    }
    assert restricted_reads == {
        "/web/access-tokens",
        "/web/audit-events",
        "/web/audit-events/actors",
        "/web/audit-events/export",
        "/web/member-sessions",  # who is signed in where is for those who may sign them out
        "/web/scim-groups",
        "/web/scim-tokens",
        "/web/subscription/preview",  # prices a change only an Owner can make
    }


def test_the_readme_role_table_is_the_permission_table() -> None:
    page = (ROOT / ROLES_PAGE).read_text()
    found = re.search(r"<!-- role-table -->\n(.*?)<!-- /role-table -->", page, re.S)
    assert found, f"{ROLES_PAGE}: the role table between <!-- role-table --> markers"
    assert found.group(1) == role_table(), (
        f"{ROLES_PAGE}'s role table differs from api/principal/roles.py; paste:\n" + role_table()
    )


def role_table() -> str:
    """The handbook's role table, rendered from the permission table."""
    lines = ["| permission | what it allows | Owner | Admin | Member |", "|---|---|---|---|---|"]
    for permission, description in DESCRIPTIONS.items():
        marks = " | ".join("✓" if permission in ROLE_PERMISSIONS[r] else "" for r in Role)
        lines.append(f"| `{permission.value}` | {description} | {marks} |")
    return "\n".join(lines) + "\n"


# Requests built from the contract.


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = CONTRACT["components"]["schemas"][name]
    return schema


def minimal(schema: dict[str, Any], name: str = "") -> Any:
    """The smallest valid value of ``schema`` (required members only)."""
    schema = _resolve(schema)
    for combinator in ("allOf", "anyOf", "oneOf"):
        if combinator in schema:
            options = [_resolve(s) for s in schema[combinator]]
            chosen = next((s for s in options if s.get("type") != "null"), options[0])
            return minimal(chosen, name)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema and schema.get("type") != "object":
        return schema["default"]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {key: minimal(properties[key], key) for key in schema.get("required", [])}
    if kind == "array":
        return [minimal(schema["items"], name) for _ in range(schema.get("minItems", 0))]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0) if kind == "integer" else float(schema.get("minimum", 0))
    if kind == "string":
        return _string(schema, name)
    raise AssertionError(f"no minimal value for {schema}")


def _string(schema: dict[str, Any], name: str) -> str:
    if schema.get("format") == "email" or name == "email":
        return unique_email()
    if schema.get("format") == "date":  # tomorrow: a date every rule about dates takes
        return (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    if schema.get("format") == "uuid":
        return str(uuid.uuid4())
    if schema.get("format") in ("uri", "url") or name.endswith(("Uri", "Url")):
        return "http://testserver/oauth/saml-test"
    if name == "domain":
        return unique_domain()
    if "pattern" in schema:
        return _simplest_match(schema["pattern"], schema.get("minLength", 0))
    return "a" * max(schema.get("minLength", 1), 1)


@functools.cache
def _simplest_match(pattern: str, min_length: int) -> str:
    """The simplest string of at least ``min_length`` characters that ``pattern`` takes, as
    Hypothesis (the fuzzer's engine) shrinks it. Searched once per pattern (the same answer for
    every role and operation that asks), and without Hypothesis's explain phase: ``find``'s
    condition holds at once, which Hypothesis treats as a failure to explain by tracing every
    line it runs again, seconds per pattern for nothing ``find`` returns."""
    strings = st.from_regex(pattern, fullmatch=True).filter(lambda s: len(s) >= min_length)
    found: str = find(
        strings,
        lambda _: True,
        settings=settings(database=None, phases=[Phase.generate, Phase.shrink]),
    )
    return found


def request_of(
    method: str, path: str, operation: dict[str, Any], target: SignedIn
) -> tuple[str, dict[str, Any], Any]:
    """The URL, query and JSON body of a minimal valid call of the operation."""
    url = path
    query: dict[str, Any] = {}
    for parameter in operation.get("parameters", []):
        parameter = _resolve(parameter)
        if parameter["in"] == "path":
            value = str(target.user.id) if parameter["name"] == "user_id" else str(uuid.uuid4())
            url = url.replace("{" + parameter["name"] + "}", value)
        elif parameter["in"] == "query" and parameter.get("required"):
            query[parameter["name"]] = minimal(parameter["schema"], parameter["name"])
    content = operation.get("requestBody", {}).get("content", {})
    body = minimal(content["application/json"]["schema"]) if "application/json" in content else None
    return url, query, body


@dataclass(frozen=True)
class Team:
    """An account with one user of each role, plus a Member to act on."""

    owner: SignedIn
    admin: SignedIn
    member: SignedIn
    target: SignedIn

    def of(self, role: Role) -> SignedIn:
        return {Role.OWNER: self.owner, Role.ADMIN: self.admin, Role.MEMBER: self.member}[role]


@pytest.fixture
async def team(make_user: MakeUser) -> Team:
    owner = await make_user(account_name="Roles Co", first_name="Olive", role=Role.OWNER)
    admin = await make_user(account=owner.account, first_name="Adam", role=Role.ADMIN)
    member = await make_user(account=owner.account, first_name="Mia", role=Role.MEMBER)
    target = await make_user(account=owner.account, first_name="Tom", role=Role.MEMBER)
    return Team(owner, admin, member, target)


async def _events(app: FastAPI, account_id: uuid.UUID) -> int:
    async with app.state.resources.sessionmaker() as db:
        count = await db.scalar(
            select(func.count()).select_from(AuditEvent).where(AuditEvent.account_id == account_id)
        )
    return count or 0


# Least to most powerful: a refusal changes nothing, so each role meets the account as the
# one before left it; the Owner's call, which may change the most, comes last.
ROLES = (Role.MEMBER, Role.ADMIN, Role.OWNER)


@pytest.mark.parametrize(
    ("method", "path", "operation"), ROLE_BOUND, ids=[f"{m} {p}" for m, p, _ in ROLE_BOUND]
)
async def test_each_role_is_allowed_or_refused_as_the_table_says(
    app: FastAPI,
    client: httpx.AsyncClient,
    team: Team,
    method: str,
    path: str,
    operation: dict[str, Any],
) -> None:
    permission = Permission(operation["x-permission"])
    for role in ROLES:
        url, query, body = request_of(method, path, operation, team.target)
        before = await _events(app, team.owner.account.id)
        response = await client.request(
            method, url, params=query, headers=team.of(role).headers, json=body
        )
        if permission in ROLE_PERMISSIONS[role]:
            assert response.status_code not in (401, 403, 422), (role, response.text)
            continue
        assert response.status_code == 403, (role, response.text)
        assert response.json() == {
            "code": "Forbidden",
            "message": OWNER_REQUIRED if holders(permission) == {Role.OWNER} else ADMIN_REQUIRED,
        }
        assert await _events(app, team.owner.account.id) == before
