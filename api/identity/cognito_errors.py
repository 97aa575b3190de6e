"""The one translator from the Cognito adapter's errors to the API's (SPEC 8 "Sign-in",
"Forgot-password", "Registration"): every service that calls Cognito wraps the call in
:func:`cognito_errors` instead of writing its own try/except ladder.

- A refusal becomes what SPEC 8 shows: UserNotConfirmedException 'This user must sign in
  with Google', UserNotFoundException 'User does not exist', UsernameExistsException the
  registration's 'This email address is already in use' (409), anything else the provider's
  own message with its code (``ProviderRefused``).
- Cognito unreachable becomes ``VendorUnavailable`` (503): nothing is known to have changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from api.adapters.cognito import (
    CognitoError,
    CognitoUnavailable,
    UsernameExistsError,
    UserNotConfirmedError,
    UserNotFoundError,
)
from api.kernel.errors import AppError, EmailInUse, ProviderRefused, VendorUnavailable

# SPEC 8's text for a password sign-in of a user who must use Google; also the message of
# ``MustSignInWithGoogle`` (api/identity/sign_in/errors.py).
MUST_USE_GOOGLE = "This user must sign in with Google"
USER_DOES_NOT_EXIST = "User does not exist"


def refusal(exc: CognitoError) -> AppError:
    """What the user sees when Cognito refuses a request (SPEC 8)."""
    if isinstance(exc, UsernameExistsError):
        return EmailInUse()
    if isinstance(exc, UserNotConfirmedError):
        return ProviderRefused(MUST_USE_GOOGLE, exc.code)
    if isinstance(exc, UserNotFoundError):
        return ProviderRefused(USER_DOES_NOT_EXIST, exc.code)
    return ProviderRefused(exc.message, exc.code)


@asynccontextmanager
async def cognito_errors(
    *, refused: Callable[[CognitoError], AppError] = refusal
) -> AsyncIterator[None]:
    """Run Cognito calls, raising API errors for the adapter's.

    Args:
        refused: the API error for a refusal (default :func:`refusal`).

    Raises:
        AppError: ``refused(exc)`` for a ``CognitoError``.
        VendorUnavailable: for ``CognitoUnavailable``.
    """
    try:
        yield
    except CognitoError as exc:
        raise refused(exc) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
