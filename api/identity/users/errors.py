"""Typed errors of User Management (SPEC 5 "Other"). Class names are wire codes."""

from api.kernel.errors import AppError

INVITE_REFUSED_WITH_SSO = "Instruct other users to sign in with SSO to join the account."


class InviteRefusedWithSso(AppError):
    """400: the account requires Google or SAML SSO, so users join by signing in with it."""

    default_message = INVITE_REFUSED_WITH_SSO


SIGNS_IN_WITH_SSO = (
    "This user was provisioned by your directory and signs in with single sign-on: there is "
    "no invitation to resend."
)


class InvitationNotPending(AppError):
    """400: Resend and Revoke apply to invitations not yet accepted (README "Roles and
    invitations")."""

    default_message = (
        "This user has already signed in, so there is no invitation to resend or revoke."
    )
