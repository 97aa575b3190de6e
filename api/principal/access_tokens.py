"""Access tokens as credentials (README "Automation"): their form, checksum and hash.

A token reads ``cat_`` (console access token), then 30 random base62 characters (about 178
bits) and 6 base62 characters of the CRC32 of those 30, as GitHub's tokens are built
(github.blog, "Behind GitHub's new authentication token formats", 2021): the prefix lets a
secret scanner recognise a leaked token, and the checksum lets it (and this API) tell a real
token from a string that merely looks like one without a database lookup. The console stores
only the token's SHA-256 and its last four characters, and shows the secret once.
"""

from __future__ import annotations

import hashlib
import secrets
import string
import zlib

PREFIX = "cat_"
_ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase
_RANDOM_LENGTH = 30
_CHECKSUM_LENGTH = 6
LENGTH = len(PREFIX) + _RANDOM_LENGTH + _CHECKSUM_LENGTH
"""Every token's length in characters (40)."""


def _base62(number: int, width: int) -> str:
    digits = []
    while number:
        number, digit = divmod(number, 62)
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits)).rjust(width, _ALPHABET[0])


def _checksum(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode()), _CHECKSUM_LENGTH)


def new_access_token() -> str:
    """A fresh token: ``cat_``, 30 random base62 characters, their 6-character checksum."""
    random_part = "".join(secrets.choice(_ALPHABET) for _ in range(_RANDOM_LENGTH))
    return PREFIX + random_part + _checksum(random_part)


def is_access_token(value: str) -> bool:
    """Whether ``value`` has an access token's form: the prefix, the length, base62 and a
    checksum that matches (a bearer credential that fails this is not looked up)."""
    if len(value) != LENGTH or not value.startswith(PREFIX):
        return False
    body = value[len(PREFIX) :]
    if any(char not in _ALPHABET for char in body):
        return False
    random_part, checksum = body[:_RANDOM_LENGTH], body[_RANDOM_LENGTH:]
    return secrets.compare_digest(_checksum(random_part), checksum)


def hash_access_token(token: str) -> bytes:
    """The token's SHA-256 (32 bytes): what is stored and looked up."""
    return hashlib.sha256(token.encode()).digest()


def masked(last4: str) -> str:
    """How the console names a token it does not reveal: ``cat_…1a2B``."""
    return f"{PREFIX}…{last4}"
