"""Typed errors of email verification (README "Security model", email ownership): the code
Cognito emails a registered user to prove their address. Class names are wire codes."""

from api.errors import AppError


class VerificationCodeMismatch(AppError):
    """400: the code is not the one Cognito emailed last (CodeMismatchException)."""

    default_message = (
        "That code is not right. Enter the code from the latest email we sent you, or press "
        "Resend for a new one."
    )


class VerificationCodeExpired(AppError):
    """400: the code is older than Cognito keeps codes (24 hours; ExpiredCodeException)."""

    default_message = "That code has expired. Press Resend to get a new one."


class EmailAlreadyVerified(AppError):
    """409: the caller's email address is verified already; there is nothing to send or
    enter."""

    status_code = 409
    default_message = "Your email address is already verified."
