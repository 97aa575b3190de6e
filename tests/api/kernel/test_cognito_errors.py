"""The one Cognito error translator (SPEC 8 messages), api/identity/cognito_errors.py."""

from __future__ import annotations

import pytest

from api.adapters.cognito import (
    CognitoError,
    CognitoUnavailable,
    NotAuthorizedError,
    UsernameExistsError,
    UserNotConfirmedError,
    UserNotFoundError,
)
from api.identity.cognito_errors import cognito_errors
from api.kernel.errors import AppError, BadRequest, VendorUnavailable


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (UserNotConfirmedError("UserNotConfirmedException", "User is not confirmed."),
         "UserNotConfirmedException", "This user must sign in with Google"),
        (UserNotFoundError("UserNotFoundException", "User does not exist."),
         "UserNotFoundException", "User does not exist"),
        (UsernameExistsError("UsernameExistsException", "User already exists"),
         "EmailInUse", "This email address is already in use"),
        (NotAuthorizedError("NotAuthorizedException", "Incorrect username or password."),
         "NotAuthorizedException", "Incorrect username or password."),
    ],
)  # fmt: skip
async def test_refusals_read_as_spec_8_says(raised: CognitoError, code: str, message: str) -> None:
    with pytest.raises(AppError) as caught:
        async with cognito_errors():
            raise raised
    assert (caught.value.code, caught.value.message) == (code, message)
    assert caught.value.__cause__ is raised


async def test_refused_overrides_the_translation() -> None:
    with pytest.raises(BadRequest, match="no"):
        async with cognito_errors(refused=lambda _: BadRequest("no")):
            raise NotAuthorizedError("NotAuthorizedException", "x")


async def test_unreachable_is_vendor_unavailable() -> None:
    with pytest.raises(VendorUnavailable):
        async with cognito_errors(refused=lambda _: BadRequest("no")):
            raise CognitoUnavailable("timeout")
