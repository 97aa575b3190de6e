"""Development-only: the one-use codes of the hosted-UI stand-in (devstack/hosted_signin.py)
and what issues them after any identity provider (Google, GitHub, or a SAML connection:
devstack/hosted_saml.py), as Cognito's hosted UI redirects to the app client's callback."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fastapi import HTTPException, Request
from fastapi.responses import RedirectResponse

from api.adapters.cognito import CognitoClient

CODE_TTL_S = 300


@dataclass(slots=True)
class IssuedCode:
    """A one-use code: the token endpoint's answer for it, the redirect URI and PKCE challenge
    it was issued for, and until when (``time.monotonic``)."""

    tokens: dict[str, Any]
    redirect_uri: str
    code_challenge: str
    expires_at: float


def codes(request: Request) -> dict[str, IssuedCode]:
    """The app's codes not exchanged yet, by code."""
    if not hasattr(request.app.state, "oauth_codes"):
        request.app.state.oauth_codes = {}
    codes: dict[str, IssuedCode] = request.app.state.oauth_codes
    return codes


async def redirect_signed_in(
    request: Request, username: str, *, redirect_uri: str, state: str, code_challenge: str
) -> RedirectResponse:
    """Sign the federated pool user ``username`` in (a random password, AdminInitiateAuth:
    real pool-signed tokens) and redirect to ``redirect_uri`` with a one-use code for them
    and ``state``, as Cognito's hosted UI does after any identity provider."""
    cognito: CognitoClient = request.app.state.resources.cognito
    password = "Dev-" + secrets.token_urlsafe(24) + "1!"
    await cognito.admin_set_user_password(username, password, permanent=True)
    result = await cognito.password_auth(username, password)
    if result.tokens is None:
        raise HTTPException(500, f"Unexpected challenge {result.challenge}")
    tokens = result.tokens
    code = secrets.token_urlsafe(24)
    codes(request)[code] = IssuedCode(
        tokens={
            "access_token": tokens.access_token,
            "id_token": tokens.id_token,
            "refresh_token": tokens.refresh_token,
            "expires_in": tokens.expires_in,
            "token_type": "Bearer",
        },
        redirect_uri=redirect_uri,
        code_challenge=code_challenge,
        expires_at=time.monotonic() + CODE_TTL_S,
    )
    return back_to_client(redirect_uri, {"code": code, "state": state})


def back_to_client(redirect_uri: str, query: dict[str, str]) -> RedirectResponse:
    """The redirect to the app client's callback with ``query`` (a code, or an OAuth error)."""
    separator = "&" if "?" in redirect_uri else "?"
    return RedirectResponse(f"{redirect_uri}{separator}{urlencode(query)}", status_code=302)
