"""Typed errors of the membership rules (README "Roles and invitations"). Class names are wire
codes."""

from api.kernel.errors import AppError


class CannotDeleteSelf(AppError):
    """400: a user cannot delete themselves."""

    default_message = "You cannot delete your own user."


class CannotChangeOwnRole(AppError):
    """400: a user cannot change their own role (another Owner or Admin does it), so nobody
    can raise themselves and the last-Owner guard is not the only thing between an Owner and
    an account with none."""

    default_message = "You cannot change your own role. Ask another Owner to change it."


class LastUserRequired(AppError):
    """400: an account keeps at least one user."""

    default_message = "The last user of an account cannot be deleted."


class LastOwnerRequired(AppError):
    """400: the account's last Owner cannot be deleted, deactivated or made Admin or Member
    (README "Roles and invitations")."""

    default_message = "An account needs at least one Owner. Make another user an Owner first."
