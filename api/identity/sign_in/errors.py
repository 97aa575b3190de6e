"""Typed errors of signing in, registering, resetting a password, joining with a federated
identity and email verification (README "Security model", email ownership: the code Cognito
emails a registered user to prove their address). Class names are wire codes (api/kernel/errors.py).
"""

from api.identity.cognito_errors import MUST_USE_GOOGLE
from api.kernel.errors import AppError


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


class MustSignInWithSso(AppError):
    """400: the user signs in through their account's SAML connection ('Sign in with SSO'),
    so passwords are refused (README "SAML single sign-on")."""

    default_message = "This user must sign in with SSO"


class SsoNotConfigured(AppError):
    """400: 'Sign in with SSO' for an email whose domain has no SAML connection; the message
    names the domain ('No single sign-on is set up for {domain}.')."""

    default_message = "No single sign-on is set up for this domain."


class SsoSignInRefused(AppError):
    """400: a sign-in through an account's SAML connection that the console does not let in
    (the email is not at one of the account's verified domains, or belongs to another
    account); the message says why."""

    default_message = "Your sign-in through single sign-on was refused."


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


class NoPasskey(AppError):
    """400: no passkey signs in to this email address: nobody has it, or its user has no
    passkey (one answer for both, so it tells nobody who has an account)."""

    default_message = (
        "There is no passkey for this email address. Sign in with your password, then add a "
        "passkey under Passkeys."
    )
