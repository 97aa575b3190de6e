"""Input rules of the sign-in and registration forms, enforced on the server too (SPEC 5).

Cognito's pool policy would check passwords in production, but the stand-in does not, and
the spec's messages are ours, so the API applies them itself.
"""

from __future__ import annotations

import re

BUSINESS_EMAIL = "Must be a valid business email address"
PASSWORD_RULE = "Password must be at least twelve characters long and contain at least one number and one special character"  # noqa: E501, S105 - a message, word for word (SPEC 5)
PASSWORD_MIN_LENGTH = 12  # SPEC 9

_DIGIT = re.compile(r"\d")
_SPECIAL = re.compile(r"[^A-Za-z0-9]")


def is_strong_password(password: str) -> bool:
    """SPEC 5: at least 12 characters, with a digit and a special (non-alphanumeric) one."""
    return (
        len(password) >= PASSWORD_MIN_LENGTH
        and _DIGIT.search(password) is not None
        and _SPECIAL.search(password) is not None
    )
