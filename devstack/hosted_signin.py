"""Development-only stand-in for the hosted sign-in page (ARCHITECTURE "Development and test
stack").

``GET /oauth2/authorize`` shows a page where a developer signs in as a test Google or GitHub
identity; ``POST`` creates (once) the federated user ``google_<id>`` / ``github_<id>`` in the
moto user pool, signs it in with AdminInitiateAuth and redirects to ``redirect_uri`` with a
one-use code; ``POST /oauth2/token`` exchanges that code for the real moto-signed tokens, which
the API verifies exactly as production tokens. For a SAML identity provider of the pool the
authorize request goes on to it instead, and its response comes back to
``/saml2/idpresponse`` (devstack/hosted_saml.py).

``api.kernel.config.Settings.check`` refuses ``DEV_STAND_INS`` outside development, so production
never mounts this module.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import time
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.principal.identity import HOSTED_DOMAIN_ATTRIBUTE
from devstack import hosted_saml
from devstack.hosted_codes import codes, redirect_signed_in

router = APIRouter(include_in_schema=False)

PROVIDERS = {"google": "Google", "github": "GitHub"}

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in with {provider} (development)</title>
<style>
body{{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:grid;
place-items:center;min-height:100vh;color:#1f2430}}
form{{background:#fff;padding:32px;border-radius:12px;box-shadow:0 4px 24px #0001;width:360px}}
h1{{font-size:20px;margin:0 0 4px}}p{{color:#5d6475;font-size:14px;margin:0 0 20px}}
label{{display:block;font-size:13px;font-weight:600;margin:12px 0 4px}}
input{{width:100%;box-sizing:border-box;padding:10px;border:1px solid #cfd3dc;border-radius:6px;
font-size:14px}}
button{{margin-top:20px;width:100%;padding:11px;border:0;border-radius:6px;background:#3b5bdb;
color:#fff;font-size:15px;font-weight:600;cursor:pointer}}
.err{{color:#c92a2a;font-size:13px}}
</style></head><body>
<form method="post" action="/oauth2/authorize">
<h1>Sign in with {provider}</h1>
<p>Development stand-in for the hosted sign-in page. Any identity works.</p>
{error}
<input type="hidden" name="identity_provider" value="{provider_param}">
<input type="hidden" name="redirect_uri" value="{redirect_uri}">
<input type="hidden" name="client_id" value="{client_id}">
<input type="hidden" name="state" value="{state}">
<input type="hidden" name="code_challenge" value="{code_challenge}">
<label for="email">Email</label><input id="email" name="email" type="email" required
 value="{email}">
<label for="given_name">First name</label><input id="given_name" name="given_name" required>
<label for="family_name">Last name</label><input id="family_name" name="family_name" required>
<label for="hd">Google Workspace domain (hd, optional)</label><input id="hd" name="hd"
 placeholder="empty: a personal Google account">
<button type="submit">Continue</button>
</form></body></html>"""


# How the pool names each provider (SPEC 2: "Google", "Github") and its type: Google is a
# built-in provider type, GitHub joins the pool as an OpenID Connect provider.
_POOL_PROVIDERS = {"google": ("Google", "Google"), "github": ("Github", "OIDC")}


def _provider_user_id(email: str) -> str:
    """A stable numeric id per email, like the provider's subject id."""
    return str(int(hashlib.sha256(email.strip().lower().encode()).hexdigest()[:15], 16))


def federated_username(provider: str, email: str) -> str:
    """The Cognito username of a test identity: ``google_<id>`` / ``github_<id>``."""
    return f"{provider}_{_provider_user_id(email)}"


def federated_attributes(
    provider: str, email: str, given_name: str, family_name: str, hosted_domain: str = ""
) -> dict[str, str]:
    """The attributes Cognito gives a user federated from ``provider`` ('google'/'github'):
    the provider-asserted email, verified, the names, ``identities``, which only Cognito
    writes and which is what proves the federation (api/principal/identity.py), and for a Google
    Workspace account its hosted domain (``hd``, mapped to ``custom:hd``)."""
    provider_name, provider_type = _POOL_PROVIDERS[provider]
    identity = {
        "userId": _provider_user_id(email),
        "providerName": provider_name,
        "providerType": provider_type,
        "issuer": None,
        "primary": "true",
        "dateCreated": str(int(time.time() * 1000)),
    }
    attributes = {
        "email": email,
        "email_verified": "true",
        "given_name": given_name,
        "family_name": family_name,
        "identities": json.dumps([identity]),
    }
    if hosted_domain and provider == "google":
        attributes[HOSTED_DOMAIN_ATTRIBUTE] = hosted_domain
    return attributes


def _provider_key(identity_provider: str) -> str:
    key = identity_provider.strip().lower()
    if key not in PROVIDERS:
        raise ValueError(f"Unknown identity provider {identity_provider!r}")
    return key


def _pkce_matches(code_verifier: str, code_challenge: str) -> bool:
    """RFC 7636 4.6: BASE64URL(SHA256(code_verifier)) equals the S256 challenge."""
    digest = hashlib.sha256(code_verifier.encode()).digest()
    expected = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return bool(code_verifier) and secrets.compare_digest(expected, code_challenge)


@router.get("/oauth2/authorize", response_class=HTMLResponse)
async def authorize_page(
    request: Request,
    redirect_uri: str,
    client_id: str,
    identity_provider: str = "Google",
    idp_identifier: str = "",
    response_type: str = "code",
    state: str = "",
    code_challenge: str = "",
    code_challenge_method: str = "",
) -> Response:
    """The sign-in page for a test Google or GitHub identity; for a SAML identity provider
    of the pool (by name, or by one of its identifiers), the redirect to it instead
    (devstack/hosted_saml.py).

    Like the console's production pool expects, a request must carry ``state`` and a PKCE
    S256 ``code_challenge`` (RFC 7636); the challenge is checked at the token endpoint.
    """
    if response_type != "code" or client_id != request.app.state.settings.cognito.client_id:
        return HTMLResponse("<h1>invalid_request</h1>", status_code=400)
    if not state or not code_challenge or code_challenge_method != "S256":
        return HTMLResponse(
            "<h1>invalid_request: state and an S256 code_challenge are required</h1>",
            status_code=400,
        )
    if idp_identifier or identity_provider.lower() not in PROVIDERS:
        return await hosted_saml.start(
            request,
            identity_provider="" if idp_identifier else identity_provider,
            idp_identifier=idp_identifier,
            redirect_uri=redirect_uri,
            state=state,
            code_challenge=code_challenge,
        )
    provider = PROVIDERS[_provider_key(identity_provider)]
    return HTMLResponse(
        _PAGE.format(
            provider=provider,
            provider_param=html.escape(identity_provider),
            redirect_uri=html.escape(redirect_uri),
            client_id=html.escape(client_id),
            state=html.escape(state),
            code_challenge=html.escape(code_challenge),
            email="",
            error="",
        )
    )


@router.post("/oauth2/authorize")
async def authorize_submit(
    request: Request,
    identity_provider: Annotated[str, Form()],
    redirect_uri: Annotated[str, Form()],
    client_id: Annotated[str, Form()],
    email: Annotated[str, Form()],
    given_name: Annotated[str, Form()],
    family_name: Annotated[str, Form()],
    state: Annotated[str, Form()],
    code_challenge: Annotated[str, Form()],
    hd: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Sign the identity in to the moto pool and redirect back with a one-use code. ``hd``
    plays Google's hosted domain of a Workspace account (empty: a personal account); it is
    set on the pool user at every sign-in, as Cognito's attribute mapping does."""
    cognito: CognitoClient = request.app.state.resources.cognito
    email = email.strip().lower()
    provider = _provider_key(identity_provider)
    username = federated_username(provider, email)
    hosted_domain = hd.strip().lower()
    attributes = federated_attributes(
        provider, email, given_name.strip(), family_name.strip(), hosted_domain
    )
    try:
        await cognito.admin_get_user(username)
    except UserNotFoundError:
        await cognito.admin_create_user(username, attributes, suppress_message=True)
    else:
        if provider == "google":  # the mapping refreshes it at every sign-in
            await cognito.admin_update_user_attributes(
                username, {HOSTED_DOMAIN_ATTRIBUTE: hosted_domain}
            )
    return await redirect_signed_in(
        request, username, redirect_uri=redirect_uri, state=state, code_challenge=code_challenge
    )


@router.post("/oauth2/token")
async def token(
    request: Request,
    grant_type: Annotated[str, Form()],
    code: Annotated[str, Form()],
    client_id: Annotated[str, Form()],
    redirect_uri: Annotated[str, Form()],
    code_verifier: Annotated[str, Form()] = "",
) -> JSONResponse:
    """Exchange a code (once, within 5 minutes, for the redirect URI it was issued for and the
    verifier of its PKCE challenge) as Cognito's token endpoint does."""
    if grant_type != "authorization_code":
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
    if client_id != request.app.state.settings.cognito.client_id:
        return JSONResponse({"error": "invalid_client"}, status_code=400)
    issued = codes(request).pop(code, None)
    if issued is None or issued.expires_at < time.monotonic():
        return JSONResponse({"error": "invalid_grant"}, status_code=400)
    if issued.redirect_uri != redirect_uri or not _pkce_matches(
        code_verifier, issued.code_challenge
    ):
        return JSONResponse({"error": "invalid_grant"}, status_code=400)
    return JSONResponse(issued.tokens)
