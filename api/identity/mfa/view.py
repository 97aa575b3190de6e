"""Two-step sign-in's read model: ``requireTwoStepSignIn`` of ``GET /web/account`` (README
"Two-step sign-in"), built here and nowhere else: one mapper over the account's
``two_step_required_at``, which the account view's statement selects with the rest."""

from __future__ import annotations

from datetime import datetime


def requires_two_step(required_at: datetime | None) -> bool:
    """Whether an account that requires two-step sign-in of its password users since
    ``required_at`` (None: it does not) requires it."""
    return required_at is not None
