"""The dev stack's app: the production app (``api.app.web.create_app``) plus the stand-ins that
let it run with no network, one module each: the hosted sign-in page (devstack/hosted_signin.py),
the mailbox (devstack/mailbox.py), the DNS records endpoint (devstack/dns_records.py), the
clock (devstack/time_travel.py), a SAML identity provider (devstack/saml_idp.py) and the hosted
UI's SAML side (devstack/hosted_saml.py); and the handbook at ``/handbook/``
(devstack/handbook.py).

``uvicorn --factory devstack.app:create_dev_app`` with ``ENVIRONMENT=development`` and
``DEV_STAND_INS=true`` (``python -m devstack`` sets both).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from api.app.web import create_app
from api.kernel.config import Settings
from devstack import (
    dns_records,
    handbook,
    hosted_saml,
    hosted_signin,
    mailbox,
    saml_idp,
    time_travel,
)


def _cognito_event_hooks(app: FastAPI) -> dict[str, list[Any]]:
    """The Cognito adapter's hooks of the stand-ins: the mailbox records what Cognito would
    email, the hosted UI keeps the pool's SAML signing key."""
    hooks: dict[str, list[Any]] = {}
    for stand_in in (mailbox.cognito_event_hooks(app), hosted_saml.cognito_event_hooks(app)):
        for event, handlers in stand_in.items():
            hooks.setdefault(event, []).extend(handlers)
    return hooks


def create_dev_app(settings: Settings | None = None) -> FastAPI:
    """The app with the development stand-ins mounted.

    Raises:
        ValueError: the settings do not turn stand-ins on (``DEV_STAND_INS``), or
            :meth:`Settings.check` refuses them (outside development, or pointing at a real
            vendor).
    """
    settings = settings or Settings()
    if not settings.dev_stand_ins:
        raise ValueError("create_dev_app needs DEV_STAND_INS=true (and ENVIRONMENT=development)")
    app = create_app(
        settings,
        cognito_event_hooks=_cognito_event_hooks,
        extra_routers=[
            mailbox.router,
            dns_records.router,
            time_travel.router,
            hosted_signin.router,
            hosted_saml.router,
            saml_idp.router,
        ],
    )
    handbook.mount_handbook(app)
    return app
