"""Encryption at rest for secrets the console must show again (the API keys: README "API
keys"), with AES-256-GCM from ``cryptography`` (NIST SP 800-38D) and named keys so the
encryption key can rotate: every ciphertext records the id of the key that sealed it, new ones
use the current key, old ones stay readable while their key is in the ring.

Settings: ``API_KEY_ENCRYPTION_KEYS``, a JSON object of key id to 32 random bytes in base64
(``{"2026-11": "q3...="}``; make one with ``python -m api.app.commands.new_key``), and
``API_KEY_ENCRYPTION_KEY_ID``, the id new secrets are sealed with. To rotate: add a key, make
it current, deploy; keys sealed before stay readable with the old key, so drop it only once
no stored secret names it (``SELECT DISTINCT encryption_key_id FROM api_key``).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Mapping

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

NONCE_BYTES = 12  # 96-bit nonces, random per message (SP 800-38D 8.2.2)


class KeyRingError(ValueError):
    """The key ring settings are missing or malformed, or a ciphertext cannot be opened (an
    unknown key id, a wrong key, or tampered bytes)."""


class KeyRing:
    """Named AES-256-GCM keys and the current one.

    Args:
        keys: key id -> 32-byte key.
        current: the id new secrets are sealed with (must be in ``keys``).

    Raises:
        KeyRingError: no keys, a key that is not 32 bytes, or ``current`` not among them.
    """

    def __init__(self, keys: Mapping[str, bytes], current: str) -> None:
        if not keys or current not in keys:
            raise KeyRingError("API_KEY_ENCRYPTION_KEY_ID must name one of API_KEY_ENCRYPTION_KEYS")
        for key_id, key in keys.items():
            if len(key) != 32:
                raise KeyRingError(f"API_KEY_ENCRYPTION_KEYS[{key_id!r}] is not 32 bytes")
        self._keys = {key_id: AESGCM(key) for key_id, key in keys.items()}
        self.current = current

    @classmethod
    def parse(cls, keys_json: str, current: str) -> KeyRing:
        """The ring of the settings' JSON (``{"id": "<base64 of 32 bytes>"}``) and current id.

        Raises:
            KeyRingError: not a JSON object of base64 strings, or as above.
        """
        try:
            raw = json.loads(keys_json or "{}")
            if not isinstance(raw, dict):
                raise TypeError(type(raw).__name__)
            keys = {str(k): base64.b64decode(v, validate=True) for k, v in raw.items()}
        except (ValueError, TypeError, binascii.Error) as exc:
            raise KeyRingError(
                "API_KEY_ENCRYPTION_KEYS must be a JSON object of key ids to base64 keys"
            ) from exc
        return cls(keys, current)

    def seal(self, plaintext: str, *, context: bytes) -> tuple[str, bytes]:
        """Encrypt ``plaintext`` (UTF-8) bound to ``context`` (authenticated, not stored; e.g.
        the account id, so a ciphertext moved to another row does not open). Returns the key
        id and ``nonce || ciphertext || tag``."""
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._keys[self.current].encrypt(nonce, plaintext.encode(), context)
        return self.current, nonce + sealed

    def open(self, key_id: str, sealed: bytes, *, context: bytes) -> str:
        """Decrypt what :meth:`seal` returned, with the same ``context``.

        Raises:
            KeyRingError: unknown key id, wrong key or context, or tampered bytes.
        """
        aead = self._keys.get(key_id)
        if aead is None:
            raise KeyRingError(f"no key {key_id!r} in API_KEY_ENCRYPTION_KEYS")
        try:
            return aead.decrypt(sealed[:NONCE_BYTES], sealed[NONCE_BYTES:], context).decode()
        except InvalidTag as exc:
            raise KeyRingError("the ciphertext does not open with its key and context") from exc


def new_key_json(key_id: str) -> str:
    """A fresh ``API_KEY_ENCRYPTION_KEYS`` value with one random key named ``key_id``."""
    return json.dumps({key_id: base64.b64encode(AESGCM.generate_key(bit_length=256)).decode()})
