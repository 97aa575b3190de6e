"""Wire shapes of the API keys (README "API keys"): ``GET /web/api-keys``, roll, reveal, expire."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from api.kernel.schemas import WHOLE_NUMBER, ApiModel

Overlap = Literal["now", "1h", "24h", "7d"]
"""How long the old key keeps working after a roll: not at all, an hour, a day, a week."""

OVERLAP_SECONDS: dict[str, int] = {"now": 0, "1h": 3600, "24h": 86_400, "7d": 604_800}

MonthlyLimit = Annotated[
    int,
    Field(
        ge=0,
        le=1_000_000_000_000,
        description="Requests (metered ai() calls) the key may have counted per billing cycle.",
    ),
    WHOLE_NUMBER,
]


class ApiKeyView(ApiModel):
    """A key as the console lists it: masked (``ak_…1a2b``), when it was made, when it stops
    working (None: no end), when it was last used (to the minute; None: never), how many
    records and requests it sent that the current billing cycle counted, and its monthly limit
    of requests (None: none; README "API keys")."""

    id: uuid.UUID
    masked: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    records_this_cycle: int
    requests_this_cycle: int
    monthly_limit: int | None


class ApiKeysResponse(ApiModel):
    """The account's keys that still work, newest first (the first is the current one)."""

    keys: list[ApiKeyView]


class RollRequest(ApiModel):
    """``POST /web/api-keys/roll``: how long the current key keeps working beside the new one,
    and the new key's monthly limit (null: none; left out: the current key's)."""

    overlap: Overlap
    monthly_limit: MonthlyLimit | None = None


class ApiKeyUpdate(ApiModel):
    """``PATCH /web/api-keys/{id}``: the key's monthly limit of requests (null: none)."""

    monthly_limit: MonthlyLimit | None


class RevealRequest(ApiModel):
    """``POST /web/api-keys/{id}/reveal``: ``reveal`` (shown on screen) or ``copy`` (put on
    the clipboard, not shown). Both are recorded."""

    purpose: Literal["reveal", "copy"]


class RevealedKey(ApiModel):
    """The key itself."""

    key: str
