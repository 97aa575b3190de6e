"""What the contract says about itself: ``info``, ``servers``, ``tags`` and the operationIds.

``create_app`` passes :func:`document_settings` to FastAPI, so the served document and the
committed ``openapi.json`` (``python -m api.app.commands.openapi``) carry the same. Third-party
tools
read these: Redocly and Spectral (``make contract-lint``) want every tag described, servers,
a license and a contact; client generators name their functions after the operationIds.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.routing import APIRoute

DESCRIPTION = """\
The calls of the account console's single-page app (`/web/*`), the test service's
metering intake (`/metering/usage`) and the SCIM 2.0 service identity providers provision an
account's users with (`/scim/v2`, RFC 7644).

**Authentication.** `/web/*` calls of a signed-in user send the Cognito access token as
`Authorization: Bearer <token>` (from `POST /web/session/sign-in`, renewed by
`POST /web/session/refresh` through the refresh-token cookie). The metering intake sends the
account's API key in `X-API-Key`; the SCIM service, a SCIM token of the account as
`Authorization: Bearer <token>`. Operations with `security: []` are public.

**Errors.** Every error is a JSON body `{"code", "message"}` (422 adds `fields`, one entry
per invalid field). `code` is stable: each operation lists, per status, the codes it can
answer, each a schema `Error_<code>`. A 429 carries `Retry-After` (seconds); a 503 means a
dependency was unreachable and nothing was changed, so the call may be sent again. The SCIM
service answers SCIM errors instead (`application/scim+json`, `ScimErrorBody`: `status`,
`scimType`, `detail`).
"""

CONTACT = {"name": "Console API maintainers"}

# The service is not open source; SPDX's form for a license of one's own.
LICENSE = {"name": "Proprietary", "identifier": "LicenseRef-Proprietary"}

# The API is served beside the SPA, so an integrator's base URL is the console's own origin.
SERVERS = [
    {"url": "/", "description": "The origin the console is served from"},
    {"url": "http://127.0.0.1:8000", "description": "The dev stack (`make dev`)"},
]

TAGS = [
    {"name": "session", "description": "Sign-in, registration, password reset, tokens."},
    {"name": "account", "description": "The account: name, users, plan, card and usage."},
    {"name": "users", "description": "Users of the account: invitations, roles, removal."},
    {"name": "sso", "description": "Single sign-on: verified email domains and the policy."},
    {
        "name": "two-step sign-in",
        "description": "Authenticator-app codes and recovery codes for password users.",
    },
    {"name": "passkeys", "description": "A password user's own passkeys (WebAuthn)."},
    {"name": "billing", "description": "Plan changes, payment method and invoices (Stripe)."},
    {"name": "api keys", "description": "The account's API keys for the test service."},
    {"name": "usage", "description": "Metered usage: the intake, alerts and CSV export."},
    {"name": "activity", "description": "The account's audit log."},
    {"name": "scim", "description": "SCIM 2.0 provisioning of users and roles (RFC 7644)."},
    {"name": "config", "description": "Public settings the SPA needs at run time."},
]


# What :func:`operation_id` yields (the contract tests hold every operation to it).
OPERATION_ID = re.compile(r"^[a-z][A-Za-z0-9]*$")


def operation_id(route: APIRoute) -> str:
    """A route's operationId: its function's name in camelCase (``sign_in`` -> ``signIn``).

    URL-safe and stable while the function keeps its name; FastAPI warns on a duplicate and
    the contract tests fail on one.
    """
    head, *rest = route.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def document_settings() -> dict[str, Any]:
    """The ``FastAPI(...)`` keyword arguments that shape the OpenAPI document."""
    return {
        "description": DESCRIPTION,
        "contact": CONTACT,
        "license_info": LICENSE,
        "servers": SERVERS,
        "openapi_tags": TAGS,
        "generate_unique_id_function": operation_id,
    }
