"""Typed errors of two-step sign-in (README "Two-step sign-in"). Class names are wire codes
(api/kernel/errors.py)."""

from api.kernel.errors import AppError, WrongCredential


class TwoStepSignInUnavailable(AppError):
    """400: the caller signs in with an identity provider (Google, GitHub, SAML), whose own
    second factor protects the sign-in; two-step sign-in is for password users."""

    default_message = (
        "Two-step sign-in is for users who sign in with a password. Your identity "
        "provider's own two-step verification protects your sign-in."
    )


class TwoStepSignInAlreadyOn(AppError):
    """409: two-step sign-in is on and no new set-up is due: turn it off first (that needs a
    current code) to set up another authenticator app."""

    status_code = 409
    default_message = (
        "Two-step sign-in is already on. Turn it off first to set up another authenticator app."
    )


class TwoStepSignInOff(AppError):
    """409: two-step sign-in is not on, so there is nothing to turn off or regenerate."""

    status_code = 409
    default_message = "Two-step sign-in is not on."


class TwoStepCodeRequired(AppError):
    """400: two-step sign-in is on, so proving a recent sign-in needs the authenticator
    app's code beside the password."""

    default_message = "Enter the 6-digit code from your authenticator app"


class TwoStepCodeMismatch(AppError):
    """400: the code does not match the authenticator app being set up."""

    default_message = (
        "That code is not right. Enter the 6-digit code your authenticator app shows now."
    )


class TwoStepSignInRequiredByAccount(AppError):
    """400: the account requires two-step sign-in of its password users, so it stays on."""

    default_message = "Your account requires two-step sign-in, so it cannot be turned off."


class RecoveryCodeMismatch(WrongCredential):
    """400: the recovery code is not one of the user's unused ones; counted as a failed
    sign-in attempt."""

    default_message = "That recovery code is not right, or it was used already."


class SetUpTwoStepSignInFirst(AppError):
    """400: an Owner who signs in with a password would require two-step sign-in without
    having it: they would lock themselves out of the console until they set it up."""

    default_message = "Set up two-step sign-in for yourself before requiring it."


class CannotResetOwnTwoStepSignIn(AppError):
    """400: a user resets their own two-step sign-in from their Two-step sign-in page (turn
    it off, with a current code), not from User Management."""

    default_message = (
        "You cannot reset your own two-step sign-in here. Turn it off from Two-step sign-in "
        "in the sidebar."
    )


class TwoStepCodeUsed(WrongCredential):
    """400: the authenticator-app code was accepted already (at a sign-in, a
    re-authentication or the set-up) and its time step has not passed (RFC 6238 5.2): a code
    works once. Counted as a failed sign-in attempt."""

    default_message = (
        "That code was used already. Wait for your authenticator app to show a new code, "
        "then enter it."
    )


class TwoStepSignInExpired(AppError):
    """400: the code answers no challenge the API handed out, or one older than Cognito lets
    a challenge be answered: the password step must be done again."""

    default_message = "This sign-in has expired. Sign in again with your email and password."
