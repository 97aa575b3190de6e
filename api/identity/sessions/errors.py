"""Errors of the sessions (README "Sessions"); class names are the wire codes."""

from __future__ import annotations

from api.kernel.errors import NotFound


class SessionNotFound(NotFound):
    """404: no live session of the signed-in user has this id (ended already, or another
    person's)."""

    default_message = "This session has ended or is not yours."
