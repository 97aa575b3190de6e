"""Every table, imported once so Alembic and the app see the whole metadata."""

from api.account.models import Account
from api.billing.models import StripeEvent
from api.db import Base
from api.ratelimit.models import RateLimitCounter
from api.usage.models import Platform, Usage, UsageRecord
from api.users.models import AuthType, User

__all__ = [
    "Account",
    "AuthType",
    "Base",
    "Platform",
    "RateLimitCounter",
    "StripeEvent",
    "Usage",
    "UsageRecord",
    "User",
]
