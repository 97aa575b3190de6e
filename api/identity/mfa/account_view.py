"""Two-step sign-in's part of ``GET /web/account`` in SQL, for the statement that builds the
whole body (api/account/repository.py): ``requireTwoStepSignIn``, as
``api.identity.mfa.service.requires_two_step`` says it."""

from __future__ import annotations


def requires_two_step_sql(account: str) -> str:
    """SQL for whether the ``account`` row (an alias) requires two-step sign-in."""
    return f"({account}.two_step_required_at IS NOT NULL)"
