"""The app client settings the sign-in policy depends on, checked at start-up (README "User
pool settings").

Password sign-in runs on the server only (AdminInitiateAuth, SigV4), so the public app
client must allow no password flow a browser or script could call itself
(``USER_PASSWORD_AUTH``, SRP, custom auth): only ``ALLOW_ADMIN_USER_PASSWORD_AUTH`` and
``ALLOW_REFRESH_TOKEN_AUTH``; nor offer the hosted UI's own password page (the ``COGNITO``
identity provider), a password sign-in outside the API's checks and limits. And it must never
grant the ``aws.cognito.signin.user.admin``
OAuth scope, with which a hosted-UI token could change its own user's attributes.

Passkey sign-in needs Cognito's ``USER_AUTH``, which would also sign in with a password, so
it runs on a second app client that must be confidential: a client secret (every request
then needs the ``SECRET_HASH`` only the API can compute), ``ALLOW_USER_AUTH`` and
``ALLOW_REFRESH_TOKEN_AUTH`` only, no OAuth flow and no hosted UI
(:func:`check_passkey_client`).

An API that cannot read its app client (DescribeUserPoolClient refused, a wrong client id,
Cognito unreachable) cannot know any of this, so outside development it does not start either
(``api.app.web``); in development, against the stand-ins, it starts and says so.
"""

from __future__ import annotations

from typing import Any

ALLOWED_AUTH_FLOWS = frozenset({"ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"})
# The passkey client's: Cognito's choice-based sign-in (passkeys are offered through it only)
# and refresh. USER_AUTH also signs in with a password, so the client must have a secret.
PASSKEY_CLIENT_AUTH_FLOWS = frozenset({"ALLOW_USER_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"})
ADMIN_SCOPE = "aws.cognito.signin.user.admin"
NATIVE_PROVIDER = "COGNITO"


class UnsafeAppClient(Exception):
    """The app client allows a way around the sign-in policy; the API refuses to start."""


class AppClientUnreadable(Exception):
    """The app client could not be read at start-up, so its settings are unknown; outside
    development the API refuses to start."""


def check_app_client(client: dict[str, Any]) -> None:
    """Check a DescribeUserPoolClient ``UserPoolClient`` object.

    Raises:
        UnsafeAppClient: naming each flow or scope that must go.
    """
    problems = [
        f"auth flow {flow} (allow only {', '.join(sorted(ALLOWED_AUTH_FLOWS))})"
        for flow in sorted(set(client.get("ExplicitAuthFlows") or []) - ALLOWED_AUTH_FLOWS)
    ]
    if ADMIN_SCOPE in (client.get("AllowedOAuthScopes") or []):
        problems.append(f"OAuth scope {ADMIN_SCOPE}")
    if NATIVE_PROVIDER in (client.get("SupportedIdentityProviders") or []):
        problems.append(f"identity provider {NATIVE_PROVIDER} (the hosted password page)")
    if problems:
        raise UnsafeAppClient(
            f"Cognito app client {client.get('ClientId', '?')} allows " + "; ".join(problems)
        )


def check_passkey_client(client: dict[str, Any]) -> None:
    """Check the passkey client's DescribeUserPoolClient ``UserPoolClient`` object.

    Raises:
        UnsafeAppClient: it has no secret (``USER_AUTH`` would be an unsigned password
            sign-in), or allows another flow, an OAuth flow or a hosted-UI identity provider.
    """
    problems = [
        f"auth flow {flow} (allow only {', '.join(sorted(PASSKEY_CLIENT_AUTH_FLOWS))})"
        for flow in sorted(set(client.get("ExplicitAuthFlows") or []) - PASSKEY_CLIENT_AUTH_FLOWS)
    ]
    if not client.get("ClientSecret"):
        problems.append("no client secret (USER_AUTH would sign in with a password, unsigned)")
    if client.get("AllowedOAuthFlows"):
        problems.append("OAuth flows (it is for the API's passkey sign-in only)")
    if client.get("SupportedIdentityProviders"):
        problems.append("identity providers (it is for the API's passkey sign-in only)")
    if problems:
        raise UnsafeAppClient(
            f"Cognito passkey app client {client.get('ClientId', '?')} allows "
            + "; ".join(problems)
        )
