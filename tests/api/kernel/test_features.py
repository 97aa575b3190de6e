"""The features declare themselves (api/feature.py, the list api/app/features.py): the app's
routes, body limits, throttles, quotas, job tasks and periodic work all come from their
declarations, and a list that contradicts itself is refused when the app is built."""

from __future__ import annotations

import json

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute

from api.app import features
from api.app.commands.openapi import OPENAPI_PATH
from api.app.web import create_app
from api.feature import BodyLimit, Feature, PeriodicTask
from api.kernel.config import Settings
from api.principal import access_tokens
from api.principal.dependencies import AccountThrottle, AddressThrottle, Permit, route_limits
from api.principal.roles import Permission
from api.ratelimit import HOUR_S, Catalogue, Quota, Throttle


def _production_app() -> FastAPI:
    return create_app(Settings(environment="production", dev_stand_ins=False, web_dist=""))


def _routes(routers: tuple[APIRouter, ...]) -> list[APIRoute]:
    return [route for router in routers for route in router.routes if isinstance(route, APIRoute)]


def test_every_router_of_the_app_is_a_features_in_the_features_order() -> None:
    app = _production_app()
    included = [r.original_router for r in app.router.routes if hasattr(r, "original_router")]
    assert included == list(features.routers())
    # Besides them, only FastAPI's own OpenAPI document (production serves no docs page).
    others = [r for r in app.router.routes if not hasattr(r, "original_router")]
    assert [getattr(r, "path", None) for r in others] == ["/openapi.json"]


def test_every_operation_of_the_contract_comes_from_a_feature() -> None:
    declared: dict[str, set[str]] = {}
    for route in _routes(features.routers()):
        if route.include_in_schema:
            declared.setdefault(route.path_format, set()).update(m.lower() for m in route.methods)
    document = json.loads(OPENAPI_PATH.read_text())
    assert {path: set(operations) for path, operations in document["paths"].items()} == declared


def test_no_two_features_declare_the_same_name() -> None:
    names = [feature.name for feature in features.FEATURES]
    limits = [t.name for t in features.throttles()] + [q.name for q in features.quotas()]
    periodic = [task.name for task in features.periodic_tasks()]
    tasks = [job.task.name for job in features.job_tasks()]
    for declared in (names, limits, periodic, tasks):
        assert len(declared) == len(set(declared)), declared


def test_every_throttle_and_quota_a_route_counts_is_declared() -> None:
    counted_throttles: set[Throttle] = set()
    counted_quotas: set[Quota] = set()
    for route in _routes(features.routers()):
        throttles, quotas = route_limits(route)
        counted_throttles |= throttles
        counted_quotas |= quotas
    # Declared and counted alike: none forgotten either way. An access token's own limit is
    # counted where the token is found (api/principal/dependencies.py), on every route that
    # accepts one.
    assert counted_throttles | {access_tokens.REQUESTS} == set(features.throttles())
    assert counted_quotas == set(features.quotas())


def test_the_catalogue_reads_every_limit_from_its_setting() -> None:
    settings = Settings(registration_limit_per_address=3, metering_records_limit_per_account=7)
    catalogue = features.catalogue(settings)
    by_name = {throttle.name: limits for throttle, limits in catalogue.throttles.items()}
    assert (by_name["registration"].per_address, by_name["registration"].per_account) == (3, None)
    assert by_name["sign-in"].window_s == settings.sign_in.limit_window_s
    assert by_name["scim"].per_address is None
    [records] = catalogue.quotas.values()
    assert (records.name, records.per_account) == ("metering-records", 7)
    for throttle in features.throttles():
        assert throttle.settings and set(throttle.settings) <= Settings.names()


def test_body_limits_and_schedules_come_from_the_features() -> None:
    assert features.body_limits() == (
        ("/webhooks/stripe", 512 * 1024),
        ("/web/sso/saml", 384 * 1024),
        ("/metering/", 1024 * 1024),
    )
    schedules = {task.name: task.schedule for task in features.periodic_tasks()}
    assert schedules == {
        "recheck_domains": "DOMAIN_RECHECK_CRON",
        "saml_upkeep": "SAML_UPKEEP_CRON",
        "reconcile_billing": "BILLING_RECONCILE_CRON",
        "audit_retention": "AUDIT_RETENTION_CRON",
        "delete_orphan_users": "ORPHAN_USER_CLEANUP_CRON",
        "access_token_expiry": "ACCESS_TOKEN_EXPIRY_CRON",
        "usage_hourly_retention": "USAGE_HOURLY_RETENTION_CRON",
        "session_retention": "SESSION_RETENTION_CRON",
    }
    assert [job.task.name for job in features.job_tasks()] == ["process_stripe_event"]


UNDECLARED = Throttle("undeclared", window_s=HOUR_S, per_address="REGISTRATION_LIMIT_PER_ADDRESS")


def _feature_counting(throttle: Throttle, name: str = "counting") -> Feature:
    router = APIRouter(prefix="/web/counting")

    @router.post("", dependencies=[Permit(Permission.PUBLIC), AddressThrottle(throttle)])
    async def count() -> None:
        """Counts ``throttle``."""

    return Feature(name=name, routers=(router,))


def test_a_route_counting_an_undeclared_throttle_is_refused() -> None:
    with pytest.raises(LookupError, match="/web/counting counts undeclared"):
        features.check((*features.FEATURES, _feature_counting(UNDECLARED)))
    declaring = Feature(name="declaring", throttles=(UNDECLARED,))
    features.check((*features.FEATURES, _feature_counting(UNDECLARED), declaring))


def test_a_name_declared_twice_is_refused() -> None:
    again = Throttle("registration", window_s=HOUR_S, per_address="INVITE_LIMIT_PER_ADDRESS")
    with pytest.raises(ValueError, match="throttles and quotas declared twice: registration"):
        features.check((*features.FEATURES, Feature(name="again", throttles=(again,))))
    with pytest.raises(ValueError, match="features declared twice: usage"):
        features.check((*features.FEATURES, Feature(name="usage")))
    with pytest.raises(ValueError, match="declared twice: registration"):
        Catalogue.of(Settings(), [again, *features.throttles()])
    task = features.periodic_tasks()[0]
    with pytest.raises(ValueError, match=f"periodic tasks declared twice: {task.name}"):
        features.check((*features.FEATURES, Feature(name="twice", periodic=(task,))))


def test_a_declaration_must_name_its_settings() -> None:
    with pytest.raises(ValueError, match="no setting is read from REGISTRATION_LIMIT"):
        Throttle("typo", window_s=HOUR_S, per_address="REGISTRATION_LIMIT")
    with pytest.raises(ValueError, match="limits nothing"):
        Throttle("nothing", window_s=HOUR_S)
    with pytest.raises(ValueError, match="no setting is read from EVERY_DAY_CRON"):
        PeriodicTask("daily", "EVERY_DAY_CRON", features.periodic_tasks()[0].run)
    not_a_number = Throttle("url", window_s=HOUR_S, per_address="PUBLIC_URL")
    with pytest.raises(TypeError, match="PUBLIC_URL is not a whole number"):
        not_a_number.limits(Settings())


def test_a_per_account_throttle_needs_an_account() -> None:
    per_account = Throttle("per-account", window_s=HOUR_S, per_account="INVITE_LIMIT_PER_ACCOUNT")
    with pytest.raises(ValueError, match="AccountThrottle counts it"):
        AddressThrottle(per_account)
    assert AccountThrottle(per_account).dependency.throttle == per_account


def test_a_feature_may_bring_larger_bodies_the_longest_prefix_first() -> None:
    # A larger limit under a prefix another feature limits: the longer prefix wins.
    feature = Feature(name="uploads", body_limits=(BodyLimit("/web/sso/saml/files", 2**22),))
    prefixes = [prefix for prefix, _ in features.body_limits((*features.FEATURES, feature))]
    assert prefixes.index("/web/sso/saml/files") < prefixes.index("/web/sso/saml")
