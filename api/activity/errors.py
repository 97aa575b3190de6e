"""Typed errors of the Activity page's reads; class names are wire codes (api/kernel/errors.py)."""

from api.kernel.errors import AppError


class InvalidCursor(AppError):
    """400: ``cursor`` is not one that ``GET /web/audit-events`` gave as ``nextCursor``."""

    default_message = "This page of the activity log is not valid. Load the log again."
