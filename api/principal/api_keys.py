"""API keys as credentials (README "API keys"): their form, their hash and their masked view. The
intake finds a key by its SHA-256 and compares it in constant time (``hmac.compare_digest``);
the key itself is stored only sealed (api/kernel/secretbox.py)."""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "ak_"


def new_api_key() -> str:
    """A fresh key: ``ak_`` and 40 hex characters (160 random bits)."""
    return PREFIX + secrets.token_hex(20)


def hash_api_key(key: str) -> bytes:
    """The key's SHA-256 (32 bytes), what is stored and looked up."""
    return hashlib.sha256(key.encode()).digest()


def matches(stored_hash: bytes, key: str) -> bool:
    """Whether ``key`` hashes to ``stored_hash``, compared in constant time."""
    return hmac.compare_digest(stored_hash, hash_api_key(key))


def masked(last4: str) -> str:
    """How the console shows a key it does not reveal: ``ak_…1a2b``."""
    return f"{PREFIX}…{last4}"
