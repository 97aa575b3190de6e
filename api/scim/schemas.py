"""Wire shapes of Directory sync in User Management (README "Directory sync (SCIM)"):
``GET``/``POST /web/scim-tokens``, ``DELETE /web/scim-tokens/{id}``. The SCIM service's own
shapes are scim2-models' (``api/scim/resources.py``)."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from api.schemas import ApiModel


class ScimTokenView(ApiModel):
    """A SCIM token as the console lists it: its last four characters (``scim_…a1B2``), when
    it was generated and by whom (null once that user is removed), when it was last used (to
    the minute; null: never)."""

    id: uuid.UUID
    masked: str
    created_at: datetime
    created_by: str | None = Field(description="The name of who generated it.")
    last_used_at: datetime | None


class DirectorySync(ApiModel):
    """The SCIM service's base URL to give the identity provider, and the account's tokens,
    newest first."""

    base_url: str
    tokens: list[ScimTokenView]


class ScimTokenCreated(ApiModel):
    """A token just generated: ``secret`` is the token itself, shown this once (only its
    SHA-256 is kept)."""

    token: ScimTokenView
    secret: str
