"""Every table, one module per table (STYLE: Polar's ``models/``): the vocabulary all domains
share, so no domain imports another for its tables. Importing this package registers the
whole metadata (Alembic's env imports ``Base`` from here)."""

from api.kernel.db import Base
from api.models.access_token import AccessToken
from api.models.account import MAX_UNITS, Account
from api.models.api_key import ApiKey, ApiKeyUsage, ApiKeyUsageDaily, ApiKeyUsageHourly
from api.models.audit_event import AuditEvent
from api.models.directory_group import LEGACY_GROUP_IDS, DirectoryGroup, DirectoryGroupMember
from api.models.passkey import Passkey
from api.models.pending_pool_user import PendingPoolUser
from api.models.rate_limit_counter import RateLimitCounter
from api.models.recovery_code import RecoveryCode
from api.models.removed_identity import RemovedIdentity
from api.models.saml_connection import SamlConnection
from api.models.scim_token import ScimToken
from api.models.sign_in_backoff import SignInBackoff
from api.models.sign_in_session import EndReason, SignInMethod, SignInSession
from api.models.sso_domain import DomainFailure, DomainState, SsoDomain
from api.models.stripe_event import StripeEvent
from api.models.stripe_invoice import StripeInvoice
from api.models.two_step_challenge import TwoStepChallenge
from api.models.two_step_lock import TwoStepLock
from api.models.two_step_used_code import TwoStepUsedCode
from api.models.usage import Platform, Usage
from api.models.usage_alert import UsageAlert
from api.models.usage_daily import UsageDaily
from api.models.usage_hourly import UsageHourly
from api.models.usage_label import UsageLabel, UsageLabelDaily, UsageLabelHourly
from api.models.usage_record import UsageRecord
from api.models.usage_total import UsageTotal
from api.models.user import AuthType, Role, User

__all__ = [
    "LEGACY_GROUP_IDS",
    "MAX_UNITS",
    "AccessToken",
    "Account",
    "ApiKey",
    "ApiKeyUsage",
    "ApiKeyUsageDaily",
    "ApiKeyUsageHourly",
    "AuditEvent",
    "AuthType",
    "Base",
    "DirectoryGroup",
    "DirectoryGroupMember",
    "DomainFailure",
    "DomainState",
    "EndReason",
    "Passkey",
    "PendingPoolUser",
    "Platform",
    "RateLimitCounter",
    "RecoveryCode",
    "RemovedIdentity",
    "Role",
    "SamlConnection",
    "ScimToken",
    "SignInBackoff",
    "SignInMethod",
    "SignInSession",
    "SsoDomain",
    "StripeEvent",
    "StripeInvoice",
    "TwoStepChallenge",
    "TwoStepLock",
    "TwoStepUsedCode",
    "Usage",
    "UsageAlert",
    "UsageDaily",
    "UsageHourly",
    "UsageLabel",
    "UsageLabelDaily",
    "UsageLabelHourly",
    "UsageRecord",
    "UsageTotal",
    "User",
]
