"""Errors of the signed-in principal: no or a bad access token, an identity without an
account yet, a missing or unknown API key, and the sign-in policy's refusals. Class names are
wire codes (api/kernel/errors.py)."""

from __future__ import annotations

from api.kernel.errors import AppError, ErrorBody


class IdentityProviderUnavailable(AppError):
    """503: the user pool's signing keys (JWKS) are needed to check the token and cannot be
    fetched; the token is not known to be bad, so the session is kept. After a failed fetch
    the API waits (1 s, doubling to 60 s) before fetching again (api/principal/tokens.py)."""

    status_code = 503
    default_message = (
        "The sign-in service cannot be reached right now. Please try again in a moment."
    )


class NotAuthenticated(AppError):
    """401: no bearer token, or one that is invalid or expired. Where a token is checked, the
    signing keys may be out of reach, so declaring this declares
    ``IdentityProviderUnavailable`` (503) too."""

    status_code = 401
    default_message = "Authentication required"
    declared_with = (IdentityProviderUnavailable,)


class ApiKeyRequired(AppError):
    """401: a metering call without the ``X-API-Key`` header."""

    status_code = 401
    default_message = (
        "API key required: send your account's API key in the X-API-Key header "
        "(shown on the console's Account Information page)"
    )


class ScimTokenRequired(AppError):
    """401: a SCIM request without ``Authorization: Bearer <SCIM token>``."""

    status_code = 401
    default_message = (
        "SCIM token required: send the token generated under User Management, Directory sync, "
        "as Authorization: Bearer <token>"
    )


class InvalidScimToken(AppError):
    """401: the bearer token is no working SCIM token (revoked, or never generated)."""

    status_code = 401
    default_message = "Invalid SCIM token: it was revoked or never generated"


class ScimTokenCreatorLeft(AppError):
    """401: the SCIM token acts with its creator's authority, and its creator was removed,
    deactivated or is no longer an Owner or Admin (README "Directory sync (SCIM)")."""

    status_code = 401
    default_message = (
        "This SCIM token stopped working: the user who generated it is no longer an Owner or "
        "Admin of the account. An Owner or Admin generates a new one."
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
    """403: the caller's role does not allow this (README "Roles and invitations"); the message
    says which role does. Not an authentication error: the SPA shows the message and keeps the
    session."""

    status_code = 403
    default_message = "Your role does not allow this."


class InvalidAccessToken(AppError):
    """401: the bearer credential has an access token's form (``cat_``) but is no token of any
    account (never made, or mistyped: its checksum does not match)."""

    status_code = 401
    default_message = "Invalid access token: it was never created or is mistyped."


class AccessTokenExpired(AppError):
    """401: the access token's expiry has passed (README "Automation")."""

    status_code = 401
    default_message = "This access token has expired. An Owner or Admin creates a new one."


class AccessTokenRevoked(AppError):
    """401: the access token was revoked (README "Automation")."""

    status_code = 401
    default_message = "This access token was revoked. An Owner or Admin creates a new one."


class AccessTokensDisabled(AppError):
    """401: an Owner turned access tokens off for the account; every token stops at once."""

    status_code = 401
    default_message = (
        "Access tokens are turned off for this account. An Owner can turn them on again."
    )


class AccessTokenRefusal(AppError):
    """401: the base of the refusals of an access token itself; a route that accepts tokens
    lists it in its responses, which declares every subclass's code."""

    status_code = 401
    default_message = "This access token does not work."

    @classmethod
    def wire_codes(cls) -> tuple[str, ...]:
        """The codes of the concrete refusals."""
        return tuple(
            sorted(
                err.__name__
                for err in (
                    InvalidAccessToken,
                    AccessTokenExpired,
                    AccessTokenRevoked,
                    AccessTokensDisabled,
                )
            )
        )


class AccessTokenNotAccepted(AppError):
    """403: this operation is a person's own (sign-in, two-step sign-in, the session) or makes
    credentials (SCIM tokens, access tokens): an access token may not call it."""

    status_code = 403
    default_message = (
        "Access tokens cannot be used for this operation: sign in to the console to do it."
    )


class MissingScopeBody(ErrorBody):
    """The body of a refusal for a missing scope: the envelope and the ``scope`` needed."""

    scope: str


class MissingScope(AppError):
    """403: the access token lacks the scope this operation needs; ``scope`` names it."""

    status_code = 403
    body_model = MissingScopeBody
    default_message = "This access token does not have the scope this operation needs."

    def __init__(self, scope: str) -> None:
        super().__init__(f"This access token does not have the {scope} scope.")
        self.scope = scope

    @property
    def details(self) -> dict[str, str]:
        """The missing scope, for scripts to act on."""
        return {"scope": self.scope}


# Refusals of the sign-in policy (api/principal/principal.py): a verified token whose user may not
# act any more. All 401: the SPA drops the session and shows the message on /login.


class SignInPolicyRefusal(AppError):
    """401: the base of the sign-in policy's refusals. A route that takes the signed-in
    caller lists it in its responses, which declares every subclass's code."""

    status_code = 401
    default_message = "Your session has ended. Please sign in again."

    @classmethod
    def wire_codes(cls) -> tuple[str, ...]:
        """The codes of the concrete refusals (this class itself is never raised)."""
        if cls is not SignInPolicyRefusal:
            return super().wire_codes()
        return tuple(sorted(sub.__name__ for sub in cls.__subclasses__()))


class GoogleSignInRequired(SignInPolicyRefusal):
    """401: the account requires Google sign-in and this token is not of a Google identity
    (SPEC 6 requireGoogleSSO); the message is SPEC 8's for a password sign-in."""

    status_code = 401
    default_message = "This user must sign in with Google"


class SamlSignInRequired(SignInPolicyRefusal):
    """401: the account requires SAML single sign-on and this token is not of an identity of
    its SAML connection (README "SAML single sign-on")."""

    status_code = 401
    default_message = "This user must sign in with SSO"


class SamlConnectionRemoved(SignInPolicyRefusal):
    """401: the token is of a SAML identity whose connection the account removed; its user
    signs in with email and password now (README "SAML single sign-on")."""

    status_code = 401
    default_message = (
        "Your account no longer uses SAML single sign-on. Sign in with your email and "
        "password; if you have no password yet, use 'Forgot your password?' to set one."
    )


class SessionEnded(SignInPolicyRefusal):
    """401: the token was issued before the user's sessions were ended (sign-out, a password
    reset, a role change, an SSO requirement), or it belongs to an earlier pool user of the
    same username."""

    status_code = 401
    default_message = "Your session has ended. Please sign in again."


class UserRemoved(SignInPolicyRefusal):
    """401: an Owner or Admin removed the user from the account."""

    status_code = 401
    default_message = (
        "You were removed from your account. Ask an Owner or Admin to invite you again."
    )

    @classmethod
    def from_account(cls, account_name: str) -> UserRemoved:
        """The refusal naming the account (the text auto-join shows too)."""
        return cls(removed_message(account_name))


class AccessDeactivated(SignInPolicyRefusal):
    """401: the user's access is turned off (deactivated) until an Owner or Admin restores it."""

    status_code = 401
    default_message = (
        "Your access to this account is turned off. Ask an Owner or Admin of your account."
    )


class InvitationLapsed(SignInPolicyRefusal):
    """401: an invited user who never signed in holds a token after their invitation
    expired (the message is the sign-in screen's for an expired invitation)."""

    status_code = 401
    default_message = (
        "Your invitation has expired. Ask an Owner or Admin of your account to send it again."
    )


def removed_message(account_name: str) -> str:
    """What a removed person is told, wherever they try to come back."""
    return f"You were removed from {account_name}. Ask an Owner or Admin to invite you again."


class RemovedFromAccount(AppError):
    """403: auto-join refused: the account removed this person (same email or same identity
    at the identity provider). Inviting them again lifts it."""

    status_code = 403
    default_message = (
        "You were removed from this account. Ask an Owner or Admin to invite you again."
    )


class EmailVerificationRequired(AppError):
    """403: the caller registered with an email address they have not proved yet (README
    "Security model", email ownership): inviting users, adding or verifying domains and
    changing single sign-on wait until they enter the code Cognito emailed them. Not an
    authentication error: the SPA shows the message and keeps the session."""

    status_code = 403
    default_message = "Verify your email address first: enter the code we sent you."

    @classmethod
    def for_email(cls, email: str) -> EmailVerificationRequired:
        """The refusal naming the address the code went to."""
        return cls(f"Verify your email address first: enter the code we sent to {email}.")


# Two-step sign-in's refusals (README "Two-step sign-in"; api/principal/two_step.py): a password
# user who must set it up and has not.


class TwoStepSignInRequired(SignInPolicyRefusal):
    """401: the user must set up two-step sign-in (their account requires it, or it was
    reset) and this token comes from a sign-in before that: they sign in again and set it
    up."""

    status_code = 401
    default_message = "Sign in again to set up two-step sign-in."


class TwoStepSetupRequired(SignInPolicyRefusal):
    """401: the user signed in but must set up two-step sign-in before anything else; only
    the set-up itself accepts this token."""

    status_code = 401
    default_message = "Set up two-step sign-in to continue."
