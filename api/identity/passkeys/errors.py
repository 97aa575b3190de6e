"""Typed errors of passkeys (README "Passkeys"). Class names are wire codes
(api/kernel/errors.py)."""

from api.kernel.errors import AppError, Conflict, NotFound


class PasskeysUnavailable(AppError):
    """403: the caller signs in with an identity provider (Google, GitHub, SAML), whose own
    sign-in protects them; passkeys are for users who sign in with a password."""

    status_code = 403
    default_message = (
        "Passkeys are for users who sign in with a password. You sign in with your identity "
        "provider."
    )


class PasskeyNotFound(NotFound):
    """404: none of the signed-in user's passkeys has this id (removed already, or another
    person's)."""

    default_message = "This passkey was removed or is not yours."


class PasskeyNameTaken(Conflict):
    """409: another of the user's passkeys has this name; names tell them apart."""

    default_message = "You have a passkey of this name already. Choose another name."


class PasskeyRefused(AppError):
    """400: Cognito did not accept the browser's new passkey (its registration was not
    started here, expired or was answered already; made for another site; an authenticator
    that does not verify the user). Start again."""

    default_message = "This passkey could not be added. Start again to add a passkey."
