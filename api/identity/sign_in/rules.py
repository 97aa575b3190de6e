"""Input rules of the sign-in and registration forms, enforced on the server too (SPEC 5).

Cognito's pool policy would check passwords in production, but the stand-in does not, and
the spec's messages are ours, so the API applies them itself.
"""

from __future__ import annotations

import re

BUSINESS_EMAIL = "Must be a valid business email address"
PASSWORD_RULE = "Password must be at least twelve characters long and contain at least one number and one special character"  # noqa: E501, S105 - a message, word for word (SPEC 5)
PASSWORD_MIN_LENGTH = 12  # SPEC 9
PASSWORD_NO_SPACES = "Password must not contain spaces"  # noqa: S105 - a message

_DIGIT = re.compile(r"\d")
_SPECIAL = re.compile(r"[^A-Za-z0-9]")
# Cognito's PasswordType pattern is [\S]+ (Java: no space, tab, line feed, vertical tab, form
# feed or carriage return), so it refuses a password chosen with any of them.
_COGNITO_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]")


def is_strong_password(password: str) -> bool:
    """SPEC 5: at least 12 characters, with a digit and a special (non-alphanumeric) one."""
    return (
        len(password) >= PASSWORD_MIN_LENGTH
        and _DIGIT.search(password) is not None
        and _SPECIAL.search(password) is not None
    )


def has_whitespace(password: str) -> bool:
    """Whether Cognito would refuse ``password`` as a new one for its white space (the
    ``[\\S]+`` pattern of PasswordType, Amazon Cognito API reference: AdminSetUserPassword,
    ConfirmForgotPassword); a password signing in is never refused for it."""
    return _COGNITO_WHITESPACE.search(password) is not None
