"""Typed errors of the SSO setting; the messages are SPEC 5's tooltip texts."""

from api.errors import AppError


class PersonalGmailAccount(AppError):
    """400: Google SSO applies to Google Workspace domains, not gmail.com."""

    default_message = (
        "This setting only applies to Google Workspace accounts, not personal Gmail accounts."
    )


class GoogleSsoAuthTypeRequired(AppError):
    """400: only a user signed in with Google can require Google SSO."""

    default_message = "You must have a Google SSO auth type to require Google SSO."
