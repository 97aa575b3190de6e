"""Single sign-on (verified domains, Google single sign-on, SAML connections): what it brings
to the app and the worker (api/feature.py)."""

from __future__ import annotations

import structlog

from api.feature import BodyLimit, Feature, PeriodicTask
from api.identity.sso.recheck import recheck_due
from api.identity.sso.router import router
from api.identity.sso.saml_refresh import upkeep
from api.identity.sso.throttles import DOMAIN_VERIFY, SAML_METADATA
from api.principal.resources import JobResources

log = structlog.get_logger(__name__)

SAML_MAX_BODY_BYTES = 384 * 1024
"""A SAML connection's metadata document (up to 256 KB, api/identity/sso/saml_metadata.py) in
JSON."""


async def recheck_domains(resources: JobResources) -> None:
    """One pass of the verified domains' re-check (api/identity/sso/recheck.py)."""
    found = await recheck_due(
        resources.sessionmaker,
        resources.dns_resolver,
        interval_s=resources.settings.sso.domain_recheck_interval_s,
    )
    log.info("domain_recheck", kept=found.kept, lost=found.lost, unreachable=found.unreachable)


async def saml_upkeep(resources: JobResources) -> None:
    """One pass of the SAML connections' upkeep (api/identity/sso/saml_refresh.py)."""
    done = await upkeep(resources.sessionmaker, resources.cognito, resources.settings)
    log.info(
        "saml_upkeep",
        changed=done.changed,
        unchanged=done.unchanged,
        failed=done.failed,
        notices=done.notices,
        resynced=done.resynced,
    )


FEATURE = Feature(
    name="sso",
    routers=(router,),
    throttles=(DOMAIN_VERIFY, SAML_METADATA),
    body_limits=(BodyLimit("/web/sso/saml", SAML_MAX_BODY_BYTES),),
    periodic=(
        PeriodicTask("recheck_domains", "DOMAIN_RECHECK_CRON", recheck_domains),
        PeriodicTask("saml_upkeep", "SAML_UPKEEP_CRON", saml_upkeep),
    ),
)
