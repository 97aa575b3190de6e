"""Every feature of the console, in one list (docs/contributors/code-layout.md "Adding a
feature"): the app (api/app/web.py) and the worker (api/app/worker.py) derive from it their
routers, request body limits, the catalogue of throttles and quotas, the job tasks and the
periodic work. A new feature declares itself in its own ``feature.py`` (api/feature.py) and
adds one line here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from fastapi import APIRouter
from fastapi.routing import APIRoute

from api.account import feature as account
from api.activity import feature as activity
from api.app import health, webconfig
from api.billing import feature as billing
from api.feature import Feature, JobTask, PeriodicTask
from api.identity.access_tokens import feature as access_tokens
from api.identity.directory import feature as directory
from api.identity.membership import feature as membership
from api.identity.mfa import feature as mfa
from api.identity.passkeys import feature as passkeys
from api.identity.sessions import feature as sessions
from api.identity.sign_in import feature as sign_in
from api.identity.sso import feature as sso
from api.identity.users import feature as users
from api.kernel.config import Settings
from api.keys import feature as keys
from api.principal.dependencies import route_limits
from api.ratelimit import Catalogue, Quota, Throttle
from api.usage import feature as usage

PROBES = Feature(name="probes", routers=(health.router,))
"""The app's own liveness and readiness probes (not in the contract)."""

SPA_CONFIG = Feature(name="spa-config", routers=(webconfig.router,))
"""The app's own ``GET /web/config``, the SPA's run-time settings."""

FEATURES: tuple[Feature, ...] = (
    PROBES,
    sign_in.FEATURE,
    account.FEATURE,
    users.FEATURE,
    sso.FEATURE,
    mfa.FEATURE,
    passkeys.FEATURE,
    billing.FEATURE,
    keys.FEATURE,
    usage.FEATURE,
    activity.FEATURE,
    directory.FEATURE,
    access_tokens.FEATURE,
    sessions.FEATURE,
    membership.FEATURE,
    SPA_CONFIG,
)
"""Every feature; their routers are included in this order (the first matching path
answers)."""


def routers(features: Sequence[Feature] = FEATURES) -> tuple[APIRouter, ...]:
    """Every feature's routers, in the features' order."""
    return tuple(router for feature in features for router in feature.routers)


def body_limits(features: Sequence[Feature] = FEATURES) -> tuple[tuple[str, int], ...]:
    """``(path prefix, bytes)`` of every feature's body limits, the longest prefix first
    (api/kernel/http/body_limits.py takes the first that matches)."""
    limits = [(limit.prefix, limit.max_bytes) for f in features for limit in f.body_limits]
    return tuple(sorted(limits, key=lambda limit: -len(limit[0])))


def throttles(features: Sequence[Feature] = FEATURES) -> tuple[Throttle, ...]:
    """Every throttle the features declare."""
    return tuple(throttle for feature in features for throttle in feature.throttles)


def quotas(features: Sequence[Feature] = FEATURES) -> tuple[Quota, ...]:
    """Every quota the features declare."""
    return tuple(quota for feature in features for quota in feature.quotas)


def catalogue(settings: Settings, features: Sequence[Feature] = FEATURES) -> Catalogue:
    """The limits of every declared throttle and quota under ``settings``.

    Raises:
        ValueError: two declarations share a name.
        TypeError: a limit's setting is not a whole number.
    """
    return Catalogue.of(settings, throttles(features), quotas(features))


def periodic_tasks(features: Sequence[Feature] = FEATURES) -> tuple[PeriodicTask, ...]:
    """Every feature's periodic work."""
    return tuple(task for feature in features for task in feature.periodic)


def job_tasks(features: Sequence[Feature] = FEATURES) -> tuple[JobTask, ...]:
    """Every job task the features defer."""
    return tuple(job for feature in features for job in feature.tasks)


def _twice(names: Iterable[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def check(features: Sequence[Feature] = FEATURES) -> None:
    """Refuse a list whose features contradict each other or leave a limit undeclared; the
    app checks its list when it is built.

    Raises:
        ValueError: two features share a name, or declare a throttle, quota, periodic task
            or job task of the same name.
        LookupError: a route counts a throttle or quota that no feature declares (its limits
            would be missing at run time, and the dev stack would not lift it).
    """
    limit_names = [t.name for t in throttles(features)] + [q.name for q in quotas(features)]
    for what, names in (
        ("features", [f.name for f in features]),
        ("throttles and quotas", limit_names),
        ("periodic tasks", [task.name for task in periodic_tasks(features)]),
        ("job tasks", [job.task.name for job in job_tasks(features)]),
    ):
        twice = _twice(names)
        if twice:
            raise ValueError(f"{what} declared twice: {', '.join(twice)}")
    declared_throttles, declared_quotas = set(throttles(features)), set(quotas(features))
    for router in routers(features):
        for route in router.routes:
            if not isinstance(route, APIRoute):
                continue
            counted_throttles, counted_quotas = route_limits(route)
            missing = [t.name for t in counted_throttles - declared_throttles]
            missing += [q.name for q in counted_quotas - declared_quotas]
            if missing:
                raise LookupError(
                    f"{route.path} counts {', '.join(sorted(missing))}, which no feature declares"
                )
