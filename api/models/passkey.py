"""The ``passkey`` table: the console's own name and last use of each passkey a pool user
registered at Cognito (README "Passkeys"). Cognito keeps the passkey itself
(ListWebAuthnCredentials) but has no rename and no last use, so the console keeps both here."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import DateTime, String, UniqueConstraint, func
from sqlalchemy.orm import Mapped, mapped_column

from api.kernel.db import Base, new_id

# A WebAuthn credential id is at most 1023 bytes (WebAuthn Level 3, "Credential ID"): 1364
# characters of unpadded base64url.
CREDENTIAL_ID_MAX_LENGTH = 1364
NAME_MAX_LENGTH = 60


class Passkey(Base):
    """One passkey of the pool user ``identity_sub`` (the access token's ``sub``), by its
    ``credential_id`` (base64url, as Cognito and browsers spell it): its ``name`` (unique per
    user), when it was added and when it last signed in (None: never)."""

    __tablename__ = "passkey"
    __table_args__ = (
        # Named here: the naming convention names a unique constraint by its first column.
        UniqueConstraint(
            "identity_sub", "credential_id", name="uq_passkey_identity_sub_credential_id"
        ),
        UniqueConstraint("identity_sub", "name", name="uq_passkey_identity_sub_name"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    identity_sub: Mapped[str] = mapped_column(String(64))
    credential_id: Mapped[str] = mapped_column(String(CREDENTIAL_ID_MAX_LENGTH))
    name: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
