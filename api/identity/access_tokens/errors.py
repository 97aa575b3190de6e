"""Errors of access token management (README "Automation"); class names are the wire codes."""

from __future__ import annotations

from api.kernel.errors import AppError


class ScopeBeyondRole(AppError):
    """403: a scope asked for is not the creator's to give (their role does not hold it)."""

    status_code = 403
    default_message = "Your role does not allow a token with this scope."


class TooManyAccessTokens(AppError):
    """409: the account holds its most live access tokens
    (``api.identity.access_tokens.service.MAX_TOKENS``)."""

    status_code = 409
    default_message = "The account has all the access tokens it may have. Revoke one first."


class AccessTokenNameTaken(AppError):
    """409: another live token of the account has this name."""

    status_code = 409
    default_message = "Another access token of this account has this name."


class AccessTokensTurnedOff(AppError):
    """409: an Owner turned access tokens off for the account; none can be created."""

    status_code = 409
    default_message = (
        "Access tokens are turned off for this account. An Owner can turn them on in Access tokens."
    )


class ExpiryOutOfRange(AppError):
    """400: ``expiresOn`` is before tomorrow or more than a year away."""

    status_code = 400
    default_message = "The expiry date must be between tomorrow and one year from today."
