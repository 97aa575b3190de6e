"""Errors of the signed-in principal: no or a bad access token, an identity without an
account yet, a missing or unknown API key. Class names are wire codes (api/errors.py)."""

from __future__ import annotations

from api.errors import AppError


class NotAuthenticated(AppError):
    """401: no bearer token, or one that is invalid or expired."""

    status_code = 401
    default_message = "Authentication required"


class ApiKeyRequired(AppError):
    """401: a metering call without the ``X-API-Key`` header."""

    status_code = 401
    default_message = (
        "API key required: send your account's API key in the X-API-Key header "
        "(shown on the console's Account Information page)"
    )


class InvalidApiKey(AppError):
    """401: the ``X-API-Key`` header matches no account."""

    status_code = 401
    default_message = (
        "Invalid API key: the X-API-Key header matches no account. Copy the key from the "
        "console's Account Information page."
    )


class AccountRequired(AppError):
    """403: a valid identity that has no user record in any account yet (SPEC 4 needsAccount)."""

    status_code = 403
    default_message = "This identity has no account yet"


class Forbidden(AppError):
    """403: the caller's role does not allow this (issue 15); the message says which role
    does. Not an authentication error: the SPA shows the message and keeps the session."""

    status_code = 403
    default_message = "Your role does not allow this."
