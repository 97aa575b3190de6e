"""Roles (SPEC 6), tested as an attacker would: a Member or an Admin calling every write
route directly, bypassing the disabled buttons of the console.

``ROUTES`` lists every route that needs a role, with a request that would be accepted; a
table-driven test calls each one as each role. A refused call is 403 ``Forbidden`` with a
message naming the role needed, and leaves no trace (no audit event); an allowed one is never
403. ``test_every_guarded_route_is_in_the_table`` keeps the table complete: a new write route
without a role decision fails it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from sqlalchemy import func, select

from api.auth.roles import ADMIN_REQUIRED, OWNER_REQUIRED
from api.deps import _owner_only, _owner_or_admin, get_caller, get_two_step_caller
from api.models import AuditEvent, Role
from tests.api.conftest import MakeUser, SignedIn, unique_domain, unique_email

OWNER = frozenset({Role.OWNER})
ADMINS = frozenset({Role.OWNER, Role.ADMIN})
EVERYONE = frozenset(Role)


@dataclass(frozen=True)
class Team:
    """An account with one user of each role, plus a Member to act on."""

    owner: SignedIn
    admin: SignedIn
    member: SignedIn
    target: SignedIn

    def of(self, role: Role) -> SignedIn:
        return {Role.OWNER: self.owner, Role.ADMIN: self.admin, Role.MEMBER: self.member}[role]


Request = Callable[[Team], tuple[str, str, dict[str, Any] | None]]


def _random_id() -> str:
    return str(uuid.uuid4())


# (method, path template as routed, who may, the request: method, URL and JSON body)
_REAUTHENTICATION = {"password": "Not-the-password-1!", "code": "123456"}
ROUTES: list[tuple[str, str, frozenset[Role], Request]] = [
    ("PUT", "/web/account", ADMINS, lambda t: ("PUT", "/web/account", {"name": "Renamed"})),
    ("POST", "/web/sso", ADMINS, lambda t: ("POST", "/web/sso", {"requireGoogleSSO": False})),
    (
        "PUT",
        "/web/sso/saml",
        ADMINS,
        lambda t: ("PUT", "/web/sso/saml", {"metadataXml": "<not-metadata/>"}),
    ),
    ("DELETE", "/web/sso/saml", ADMINS, lambda t: ("DELETE", "/web/sso/saml", None)),
    (
        "POST",
        "/web/sso/saml/requirement",
        ADMINS,
        lambda t: ("POST", "/web/sso/saml/requirement", {"requireSamlSSO": False}),
    ),
    (
        "POST",
        "/web/sso/saml/test",
        ADMINS,
        lambda t: (
            "POST",
            "/web/sso/saml/test",
            {"redirectUri": "http://testserver/oauth/saml-test"},
        ),
    ),
    (
        "POST",
        "/web/sso/saml/test/result",
        ADMINS,
        lambda t: (
            "POST",
            "/web/sso/saml/test/result",
            {"code": "c", "state": "s", "redirectUri": "http://testserver/oauth/saml-test"},
        ),
    ),
    (
        "POST",
        "/web/sso/domains",
        ADMINS,
        lambda t: ("POST", "/web/sso/domains", {"domain": unique_domain()}),
    ),
    (
        "POST",
        "/web/sso/domains/{domain_id}/verify",
        ADMINS,
        lambda t: ("POST", f"/web/sso/domains/{_random_id()}/verify", None),
    ),
    (
        "DELETE",
        "/web/sso/domains/{domain_id}",
        ADMINS,
        lambda t: ("DELETE", f"/web/sso/domains/{_random_id()}", None),
    ),
    (
        "POST",
        "/web/users",
        ADMINS,
        lambda t: (
            "POST",
            "/web/users",
            {"firstName": "New", "lastName": "Person", "email": unique_email(), "role": "Member"},
        ),
    ),
    (
        "PUT",
        "/web/users/{user_id}",
        ADMINS,
        lambda t: (
            "PUT",
            f"/web/users/{t.target.user.id}",
            {"firstName": "Renamed", "lastName": "Person"},
        ),
    ),
    (
        "DELETE",
        "/web/users/{user_id}",
        ADMINS,
        lambda t: ("DELETE", f"/web/users/{_random_id()}", None),
    ),
    (
        "POST",
        "/web/users/{user_id}/invitation",
        ADMINS,
        lambda t: ("POST", f"/web/users/{_random_id()}/invitation", None),
    ),
    (
        "DELETE",
        "/web/users/{user_id}/invitation",
        ADMINS,
        lambda t: ("DELETE", f"/web/users/{_random_id()}/invitation", None),
    ),
    ("POST", "/web/subscription", OWNER, lambda t: ("POST", "/web/subscription", {"units": 0})),
    (
        "GET",
        "/web/subscription/preview",
        OWNER,
        lambda t: ("GET", "/web/subscription/preview?units=1", None),
    ),
    ("POST", "/web/subscription/pay", OWNER, lambda t: ("POST", "/web/subscription/pay", None)),
    (
        "POST",
        "/web/subscription/payment",
        OWNER,
        lambda t: ("POST", "/web/subscription/payment", {"cardToken": "tok_unknown"}),
    ),
    (
        "DELETE",
        "/web/subscription/payment",
        OWNER,
        lambda t: ("DELETE", "/web/subscription/payment", None),
    ),
    (
        "POST",
        "/web/api-keys/roll",
        ADMINS,
        lambda t: ("POST", "/web/api-keys/roll", {"overlap": "1h"}),
    ),
    (
        "POST",
        "/web/api-keys/{key_id}/expire",
        ADMINS,
        lambda t: ("POST", f"/web/api-keys/{_random_id()}/expire", None),
    ),
    (
        "PATCH",
        "/web/api-keys/{key_id:uuid}",
        ADMINS,
        lambda t: ("PATCH", f"/web/api-keys/{_random_id()}", {"monthlyLimit": 1000}),
    ),
    (
        "POST",
        "/web/api-keys/{key_id}/reveal",
        EVERYONE,  # SPEC 6: Members copy the API key
        lambda t: ("POST", f"/web/api-keys/{_random_id()}/reveal", {"purpose": "copy"}),
    ),
    # A user proves their own email address, whatever their role.
    (
        "POST",
        "/web/session/email-verification",
        EVERYONE,
        lambda t: ("POST", "/web/session/email-verification", None),
    ),
    (
        "POST",
        "/web/session/email-verification/confirm",
        EVERYONE,
        lambda t: ("POST", "/web/session/email-verification/confirm", {"code": "123456"}),
    ),
    # A user's own two-step sign-in, whatever their role.
    (
        "POST",
        "/web/two-step-sign-in/setup",
        EVERYONE,
        lambda t: ("POST", "/web/two-step-sign-in/setup", None),
    ),
    (
        "POST",
        "/web/two-step-sign-in/setup/confirm",
        EVERYONE,
        lambda t: ("POST", "/web/two-step-sign-in/setup/confirm", {"code": "123456"}),
    ),
    (
        "POST",
        "/web/two-step-sign-in/recovery-codes",
        EVERYONE,
        lambda t: ("POST", "/web/two-step-sign-in/recovery-codes", _REAUTHENTICATION),
    ),
    (
        "POST",
        "/web/two-step-sign-in/disable",
        EVERYONE,
        lambda t: ("POST", "/web/two-step-sign-in/disable", _REAUTHENTICATION),
    ),
    (
        "PUT",
        "/web/two-step-sign-in/requirement",
        OWNER,
        lambda t: ("PUT", "/web/two-step-sign-in/requirement", {"required": False}),
    ),
    (
        "DELETE",
        "/web/users/{user_id}/two-step-sign-in",
        ADMINS,
        lambda t: ("DELETE", f"/web/users/{t.target.user.id}/two-step-sign-in", None),
    ),
    (
        "PUT",
        "/web/usage-alerts",
        ADMINS,
        lambda t: ("PUT", "/web/usage-alerts", {"thresholds": [80], "recipientIds": []}),
    ),
    (
        "PUT",
        "/web/usage/limits",
        ADMINS,
        lambda t: ("PUT", "/web/usage/limits", {"atAllowance": "stop"}),
    ),
    (
        "GET",
        "/web/audit-events",
        ADMINS,
        lambda t: ("GET", "/web/audit-events", None),
    ),
    (
        "GET",
        "/web/audit-events/actors",
        ADMINS,
        lambda t: ("GET", "/web/audit-events/actors", None),
    ),
    (
        "GET",
        "/web/audit-events/export",
        ADMINS,
        lambda t: ("GET", "/web/audit-events/export", None),
    ),
    ("GET", "/web/scim-tokens", ADMINS, lambda t: ("GET", "/web/scim-tokens", None)),
    ("POST", "/web/scim-tokens", ADMINS, lambda t: ("POST", "/web/scim-tokens", None)),
    (
        "DELETE",
        "/web/scim-tokens/{token_id}",
        ADMINS,
        lambda t: ("DELETE", f"/web/scim-tokens/{_random_id()}", None),
    ),
    ("GET", "/web/scim-groups", ADMINS, lambda t: ("GET", "/web/scim-groups", None)),
    (
        "PUT",
        "/web/scim-groups/{group_id}/role",
        ADMINS,
        lambda t: ("PUT", f"/web/scim-groups/{_random_id()}/role", {"role": "Member"}),
    ),
]


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


def _routed(app: FastAPI) -> set[tuple[str, str]]:
    return {
        (method, route.path) for method, route in _web_routes(app) if _has(route.dependant, None)
    }


def _api_routes(routes: list[Any]) -> list[APIRoute]:
    """Every APIRoute, also inside routers FastAPI includes lazily (``original_router``)."""
    found: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif (included := getattr(route, "original_router", None)) is not None:
            found += _api_routes(included.routes)
    return found


def _web_routes(app: FastAPI) -> list[tuple[str, APIRoute]]:
    routes = _api_routes(app.routes)
    assert len(routes) > 30, "the app's routes were not found"
    return [
        (method, route)
        for route in routes
        if route.path.startswith("/web")
        for method in sorted(route.methods)
    ]


def _has(dependant: Dependant, call: Callable[..., Any] | None) -> bool:
    """Whether ``call`` is among the dependencies (None: a role dependency)."""
    for sub in dependant.dependencies:
        wanted = {_owner_only, _owner_or_admin} if call is None else {call}
        if sub.call in wanted or _has(sub, call):
            return True
    return False


def test_every_guarded_route_is_in_the_table(app: FastAPI) -> None:
    table = {(method, path) for method, path, _, _ in ROUTES}
    # Writes by a signed-in user: each one has a role dependency, or is in the table as open
    # to every role on purpose.
    open_to_all = {(m, p) for m, p, roles, _ in ROUTES if roles == EVERYONE}
    for method, route in _web_routes(app):
        if method in {"GET", "HEAD"} or not (
            _has(route.dependant, get_caller) or _has(route.dependant, get_two_step_caller)
        ):
            continue
        assert (method, route.path) in _routed(app) | open_to_all, (
            f"{method} {route.path} changes account data without a role dependency"
        )
    assert _routed(app) | open_to_all == table


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.value)
@pytest.mark.parametrize(
    ("method", "path", "allowed", "request_of"), ROUTES, ids=[f"{m} {p}" for m, p, _, _ in ROUTES]
)
async def test_role_on_route(
    app: FastAPI,
    client: httpx.AsyncClient,
    team: Team,
    role: Role,
    method: str,
    path: str,
    allowed: frozenset[Role],
    request_of: Request,
) -> None:
    verb, url, body = request_of(team)
    before = await _events(app, team.owner.account.id)
    response = await client.request(verb, url, headers=team.of(role).headers, json=body)
    if role in allowed:
        assert response.status_code != 403, response.text
        return
    assert response.status_code == 403, response.text
    assert response.json() == {
        "code": "Forbidden",
        "message": OWNER_REQUIRED if allowed == OWNER else ADMIN_REQUIRED,
    }
    assert await _events(app, team.owner.account.id) == before
