"""Bodies of ``/web/sessions`` (README "Sessions")."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from api.kernel.schemas import ApiModel
from api.models import SignInMethod


class SessionView(ApiModel):
    """A live session of the signed-in user: how and when it started, from which browser,
    operating system and address, and when it was last active (to the minute)."""

    id: uuid.UUID
    method: SignInMethod
    browser: str | None = Field(description="The browser and its major version; null: unknown.")
    os: str | None = Field(description="The operating system; null: unknown.")
    client_address: str = Field(description="The address the sign-in came from.")
    started_at: datetime
    last_active_at: datetime
    current: bool = Field(description="The session of the request's own access token.")


class SessionsResponse(ApiModel):
    """The signed-in user's live sessions, the latest active first."""

    sessions: list[SessionView]


class EndedSessions(ApiModel):
    """How many sessions a request ended."""

    ended: int
