"""Typed errors of signing in, registering, resetting a password, joining with a federated
identity and email verification (README "Security model", email ownership: the code Cognito
emails a registered user to prove their address). Class names are wire codes (api/errors.py).
"""

from api.cognito_errors import MUST_USE_GOOGLE
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


# Sign-in, registration and password reset (SPEC 8 "Sign-in", "Registration",
# "Forgot-password").


class MustSignInWithGoogle(AppError):
    """400: the user's account requires Google sign-in, so passwords are refused (SPEC 6, 8)."""

    default_message = MUST_USE_GOOGLE


class InvitationExpired(AppError):
    """400: an invited user's invitation expired before their first sign-in (README "Roles and
    invitations")."""

    default_message = (
        "Your invitation has expired. Ask an Owner or Admin of your account to send it again."
    )


class PasswordResetUnavailable(AppError):
    """400: the provider accepted a reset but reported no code delivery (SPEC 8)."""

    default_message = (
        "There was an error resetting your password. Please email support to reset your password."
    )


class ValidationCodeExpired(AppError):
    """400: the hosted UI's code was used, expired or unknown (OAuth invalid_grant, SPEC 8)."""

    default_message = "Validation code has expired"


class UnableToAuthenticate(AppError):
    """400: any other failure of the code exchange (SPEC 8)."""

    default_message = "Unable to authenticate user"


class InvalidEmailProvider(AppError):
    """400: registration with a free or disposable email domain (SPEC 5, 8)."""

    default_message = "Invalid email provider"


class EmailNotVerified(AppError):
    """400: the identity provider has not verified the identity's email address, so it cannot
    prove membership of an email domain (README "Security model", who someone is)."""

    default_message = "Your identity provider has not verified this email address"
