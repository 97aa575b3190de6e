"""Recovery codes of two-step sign-in (README "Two-step sign-in"): ten one-time codes a user
can sign in with instead of an authenticator-app code.

A code is 10 characters of Crockford's base32 (50 random bits), shown as ``xxxxx-xxxxx``. Only
its Argon2id hash is stored (RFC 9106, with argon2-cffi; OWASP's minimum settings: 19 MiB,
2 passes, 1 lane), so a copy of the database does not give the codes away even with the
app's settings beside it (no key to steal, unlike an HMAC). The ten codes of a set share one
random salt: checking a code then costs one hash (about 20-60 ms, in a worker thread) however
many codes are left, which bounds the CPU a stream of guesses costs (each guess is a counted
sign-in attempt too, api/kernel/ratelimit). Sharing the salt lets an offline guess be tried against
the ten codes at once: 47 bits of work instead of 50, for one user.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import secrets
import uuid
from collections.abc import Sequence

from argon2.low_level import Type, hash_secret

COUNT = 10
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford's base32, lowercase
_LENGTH = 10
# Crockford's decoding of characters people read for others.
_READ_AS = str.maketrans({"i": "1", "l": "1", "o": "0", "u": "v"})
_TIME_COST = 2
_MEMORY_KIB = 19 * 1024
_PARALLELISM = 1
_HASH_BYTES = 32
_SALT_BYTES = 16


def new_codes() -> list[str]:
    """:data:`COUNT` fresh codes, as shown (``k3f9q-x2m7a``)."""
    codes = []
    for _ in range(COUNT):
        raw = "".join(secrets.choice(_ALPHABET) for _ in range(_LENGTH))
        codes.append(f"{raw[:5]}-{raw[5:]}")
    return codes


def normalize(code: str) -> str:
    """A code as typed, made comparable: lowercased, without spaces or dashes, with the
    characters Crockford's base32 reads as digits (``o`` as 0, ``i`` and ``l`` as 1)."""
    return "".join(code.lower().split()).replace("-", "").translate(_READ_AS)


def _hash(code: str, salt: bytes) -> str:
    return hash_secret(
        normalize(code).encode(),
        salt,
        time_cost=_TIME_COST,
        memory_cost=_MEMORY_KIB,
        parallelism=_PARALLELISM,
        hash_len=_HASH_BYTES,
        type=Type.ID,
    ).decode()


def _salt_of(stored: str) -> bytes:
    """The salt of a PHC string ``$argon2id$v=19$m=...,t=...,p=...$<salt>$<hash>``."""
    salt = stored.split("$")[4]
    return base64.b64decode(salt + "=" * (-len(salt) % 4))


async def hash_codes(codes: Sequence[str]) -> list[str]:
    """The PHC strings of ``codes`` (one random salt for the set), computed in a worker
    thread: Argon2 releases the GIL, and the event loop keeps serving."""
    salt = secrets.token_bytes(_SALT_BYTES)
    return await asyncio.to_thread(lambda: [_hash(code, salt) for code in codes])


async def find(code: str, stored: Sequence[tuple[uuid.UUID, str]]) -> uuid.UUID | None:
    """The id of the entry of ``stored`` (``(id, PHC string)`` of one set) that ``code``
    matches, or None; one hash (in a worker thread), compared with each in constant time."""
    if not stored or len(normalize(code)) != _LENGTH:
        return None
    digest = await asyncio.to_thread(_hash, code, _salt_of(stored[0][1]))
    found = None
    for entry_id, phc in stored:
        if hmac.compare_digest(digest.encode(), phc.encode()):
            found = entry_id
    return found
