"""Wire shapes of the API keys (README "API keys"): ``GET /web/api-keys``, roll, reveal, expire."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from api.schemas import ApiModel

Overlap = Literal["now", "1h", "24h", "7d"]
"""How long the old key keeps working after a roll: not at all, an hour, a day, a week."""

OVERLAP_SECONDS: dict[str, int] = {"now": 0, "1h": 3600, "24h": 86_400, "7d": 604_800}


class ApiKeyView(ApiModel):
    """A key as the console lists it: masked (``ak_…1a2b``), when it was made, when it stops
    working (None: no end), when it was last used (to the minute; None: never), and how many
    records it sent that the current billing cycle counted."""

    id: uuid.UUID
    masked: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    records_this_cycle: int


class ApiKeysResponse(ApiModel):
    """The account's keys that still work, newest first (the first is the current one)."""

    keys: list[ApiKeyView]


class RollRequest(ApiModel):
    """``POST /web/api-keys/roll``: how long the current key keeps working beside the new one."""

    overlap: Overlap


class RevealRequest(ApiModel):
    """``POST /web/api-keys/{id}/reveal``: ``reveal`` (shown on screen) or ``copy`` (put on
    the clipboard, not shown). Both are recorded."""

    purpose: Literal["reveal", "copy"]


class RevealedKey(ApiModel):
    """The key itself."""

    key: str
