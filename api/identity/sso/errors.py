"""Typed errors of Google single sign-on and its domains; the SSO messages are SPEC 5's
tooltip texts, the domain ones those of README "Verified domains"."""

from api.kernel.errors import AppError


class PersonalGmailAccount(AppError):
    """400: Google SSO applies to Google Workspace domains, not gmail.com."""

    default_message = (
        "This setting only applies to Google Workspace accounts, not personal Gmail accounts."
    )


class GoogleSsoAuthTypeRequired(AppError):
    """400: only a user signed in with Google can require Google SSO."""

    default_message = "You must have a Google SSO auth type to require Google SSO."


class VerifiedDomainRequired(AppError):
    """400: Google SSO lets people of a domain join the account, so the account must have
    proved it owns one first (README "Verified domains")."""

    default_message = "Verify your company's domain before requiring Google SSO."


class InvalidDomain(AppError):
    """400: not a domain name (letters, digits and hyphens in dot-separated labels of at most
    63 characters, at least two labels, 253 characters in all: RFC 1035 2.3.1, RFC 1123 2.1)."""

    default_message = "Enter a domain name such as example.com."


class PublicEmailDomain(AppError):
    """400: a free, disposable or special-use email domain (api/kernel/emails.py
    ``is_blocked_domain``): nobody can prove a company owns it."""

    default_message = (
        "Public email domains such as gmail.com cannot be added: add your company's own domain."
    )


class DomainAlreadyAdded(AppError):
    """409: the account lists this domain already."""

    status_code = 409
    default_message = "This domain is already on the list."


class DnsUnavailable(AppError):
    """503: no nameserver answered within ``DNS_LIFETIME_S``; nothing was changed."""

    status_code = 503
    default_message = "We could not reach DNS; try again"


# SAML single sign-on (README "SAML single sign-on").


class InvalidSamlMetadata(AppError):
    """400: the identity provider's metadata is not usable; the message names the problem
    (api/identity/sso/saml_metadata.py)."""

    default_message = "The identity provider's metadata is not valid SAML 2.0 metadata."


class SamlMetadataUnreachable(AppError):
    """400: the metadata URL could not be fetched, or is not one the console fetches (not
    https, not a public address); the message says which. Nothing was changed."""

    default_message = "We could not fetch the metadata from that URL."


class SsoChangeBusy(AppError):
    """503: another change to the pool's identity providers (a SAML connection saved or
    removed by any account) held the app client's lock longer than
    ``saml.APP_CLIENT_LOCK_TIMEOUT_MS``; nothing was changed."""

    status_code = 503
    default_message = (
        "Another single sign-on change is being saved right now. Please try again in a few seconds."
    )


class SamlSsoAuthTypeRequired(AppError):
    """400: only a user who signed in through the SAML connection can require it (the mirror
    of SPEC 5's 'You must have a Google SSO auth type to require Google SSO.')."""

    default_message = "You must have a SAML SSO auth type to require SAML SSO."


class SamlConnectionRequired(AppError):
    """400: requiring SAML, or testing it, needs the account's SAML connection first."""

    default_message = "Set up the SAML connection first."


class SamlTestFailed(AppError):
    """400: the test sign-in could not be completed (no test started in this browser, a
    state that is not this browser's, or a code Cognito refused); the message says which."""

    default_message = "The test sign-in could not be completed. Start it again."
