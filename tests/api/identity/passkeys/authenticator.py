"""A passkey provider in software, for tests without a browser: one EC P-256 key (ES256), the
RegistrationResponseJSON and AuthenticationResponseJSON a browser's
``PublicKeyCredential.toJSON()`` gives (WebAuthn Level 3), attestation ``none`` encoded with
cbor2, and authenticator data as WebAuthn 6.1 lays it out: the SHA-256 of the RP ID, the
flags, a big-endian 32-bit sign count, then, at registration, the attested credential data
(AAGUID, credential ID length and ID, COSE key)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

# Authenticator data flags (WebAuthn 6.1): user present, user verified, attested data.
UP = 0x01
UV = 0x04
AT = 0x40
# COSE (RFC 9052, RFC 9053): key type EC2, algorithm ES256, curve P-256.
COSE_EC2, COSE_ES256, COSE_P256 = 2, -7, 1


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftAuthenticator:
    """One passkey. ``user_verified``: whether it verifies the user (the UV flag)."""

    def __init__(
        self,
        *,
        user_verified: bool = True,
        attachment: str = "platform",
        transports: tuple[str, ...] = ("internal", "hybrid"),
    ) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = secrets.token_bytes(32)
        self.sign_count = 0
        self.user_verified = user_verified
        self.attachment = attachment
        self.transports = transports
        self.user_handle = b""

    @property
    def id(self) -> str:
        """The credential ID as Cognito lists it (base64url)."""
        return b64url(self.credential_id)

    def _flags(self, *extra: int) -> bytes:
        flags = UP | (UV if self.user_verified else 0)
        for flag in extra:
            flags |= flag
        return bytes([flags])

    def register(
        self, options: dict[str, Any], *, origin: str, rp_id: str | None = None
    ) -> dict[str, Any]:
        """The RegistrationResponseJSON for Cognito's CredentialCreationOptions, made at
        ``origin`` for ``rp_id`` (by default the options' RP ID, as a browser would)."""
        rp_id = rp_id or options["rp"]["id"]
        self.user_handle = unb64url(options["user"]["id"])
        numbers = self.key.public_key().public_numbers()
        cose_key = {
            1: COSE_EC2,
            3: COSE_ES256,
            -1: COSE_P256,
            -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big"),
        }
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest()
            + self._flags(AT)
            + struct.pack(">I", self.sign_count)
            + bytes(16)  # AAGUID: none, as attestation "none" may give
            + struct.pack(">H", len(self.credential_id))
            + self.credential_id
            + cbor2.dumps(cose_key)
        )
        client_data = json.dumps(
            {"type": "webauthn.create", "challenge": options["challenge"], "origin": origin}
        ).encode()
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "authenticatorAttachment": self.attachment,
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": list(self.transports),
            },
        }

    def sign_in(
        self,
        options: dict[str, Any] | str,
        *,
        origin: str,
        rp_id: str | None = None,
        sign_count: int | None = None,
        key: ec.EllipticCurvePrivateKey | None = None,
    ) -> dict[str, Any]:
        """The AuthenticationResponseJSON for CREDENTIAL_REQUEST_OPTIONS (a dict or its JSON).
        The sign count goes up by one unless ``sign_count`` says what to claim; ``key`` signs
        instead of the passkey's own (a forgery)."""
        if isinstance(options, str):
            options = json.loads(options)
        assert isinstance(options, dict)
        rp_id = rp_id or options["rpId"]
        if sign_count is None:
            self.sign_count += 1
            sign_count = self.sign_count
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest() + self._flags() + struct.pack(">I", sign_count)
        )
        client_data = json.dumps(
            {"type": "webauthn.get", "challenge": options["challenge"], "origin": origin}
        ).encode()
        signature = (key or self.key).sign(
            auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "authenticatorAttachment": self.attachment,
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(self.user_handle),
            },
        }
