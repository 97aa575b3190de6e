"""Service configuration, read once from the environment (pydantic-settings).

Every setting is an environment variable (``DATABASE_URL``, ``COGNITO_USER_POOL_ID``...), the
names deployments use (``deploy/k8s/base/configmap.yaml``, ``docker-compose.yml``, the dev
stack's environment) and docs/operators/configuration.md lists. Secrets have no working default
outside development: the dev stack (``python -m devstack``) fills them in for the local
stand-ins, and production must set them.

In the code the settings come in sections: the process's own at the top of :class:`Settings`
(``settings.database_url``, ``settings.public_url``), each vendor's and each feature's in a
section of its own, a frozen pydantic model (``settings.stripe.secret_key``,
``settings.sign_in.limit_per_address``, ``settings.sso.saml_upkeep_cron``). A section's field
names its environment variable as its validation alias (``validation_alias="STRIPE_SECRET_KEY"``,
``AliasChoices`` where an older name is still read), so the variables keep their flat names:

- from the environment, :class:`_SectionedEnvironment` reads every variable of every section
  through pydantic-settings' own environment source over a flat class made from the sections
  (:func:`_flat_environment`: the same matching without case, the same JSON decoding of lists),
  and hands each section its values under their variables' names;
- in code, ``Settings(dns_port=5353)`` and ``settings.updated(registration_limit_per_address=2)``
  take the variables' names in lower case, as the flat class did (the tests, the dev stack's
  environment); they win over the environment;
- a wrong value is refused naming the section and the variable
  (``sign_in.SIGN_IN_LIMIT_PER_ADDRESS``), and declarations that name their settings (a
  feature's throttles and periodic tasks, api/feature.py) read them with :meth:`Settings.value`.

So ``Settings()`` reads the same variables, with the same parsing, as the flat class did.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal
from urllib.parse import urlsplit

from croniter import croniter
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from api.kernel.http.client_address import Network, parse_networks

_LIVE_KEY_PREFIXES = ("sk_live_", "rk_live_", "pk_live_")


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is this machine: ``localhost``, 127.0.0.0/8 or ``::1``.

    Args:
        url: an absolute URL such as ``http://127.0.0.1:4566``; anything without a host
            (empty, relative, unparsable) is not loopback.
    """
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_loopback_address(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _variables(field: FieldInfo) -> tuple[str, ...]:
    """The environment variables a section's field reads, the first its own name."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices)
    if isinstance(alias, str):
        return (alias,)
    raise TypeError("a section's field names its environment variable (validation_alias)")


class Section(BaseModel):
    """The settings of one vendor or feature; each field reads the environment variable named
    by its validation alias (see the module docstring)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_by_alias=True, validate_by_name=True
    )

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Each field's environment variable (its own name, not an older one), by field."""
        return {name: _variables(field)[0] for name, field in cls.model_fields.items()}

    @classmethod
    def _cron(cls, value: str, info: ValidationInfo) -> str:
        """``value`` when it is empty (never) or a cron expression.

        Raises:
            ValueError: naming the variable: ``DOMAIN_RECHECK_CRON: 'every day' is not...``.
        """
        if value and not croniter.is_valid(value):
            name = cls.variables()[info.field_name or ""]
            raise ValueError(f"{name}: {value!r} is not a cron expression, e.g. '*/10 * * * *'")
        return value


class CognitoSettings(Section):
    """The identity provider: an Amazon Cognito user pool (ARCHITECTURE "Identity")."""

    region: str = Field(default="us-east-1", validation_alias="AWS_REGION")
    access_key_id: str = Field(default="", validation_alias="AWS_ACCESS_KEY_ID")
    secret_access_key: SecretStr = Field(
        default=SecretStr(""), validation_alias="AWS_SECRET_ACCESS_KEY"
    )
    endpoint: str = Field(
        default="",
        validation_alias="COGNITO_ENDPOINT",
        description="Cognito API base URL; empty means https://cognito-idp.<region>.amazonaws.com.",
    )
    user_pool_id: str = Field(default="", validation_alias="COGNITO_USER_POOL_ID")
    client_id: str = Field(default="", validation_alias="COGNITO_CLIENT_ID")
    passkey_client_id: str = Field(
        default="",
        validation_alias="COGNITO_PASSKEY_CLIENT_ID",
        description="The confidential app client of passkey sign-in (USER_AUTH, with a "
        "secret); empty turns passkey sign-in off.",
    )
    passkey_client_secret: SecretStr = Field(
        default=SecretStr(""), validation_alias="COGNITO_PASSKEY_CLIENT_SECRET"
    )
    hosted_ui_url: str = Field(
        default="",
        validation_alias="COGNITO_HOSTED_UI_URL",
        description="Hosted UI domain, e.g. https://auth.example.com (serves /oauth2/authorize).",
    )
    timeout_s: float = Field(default=5.0, validation_alias="COGNITO_TIMEOUT_S")
    refresh_token_validity_s: int = Field(
        default=30 * 24 * 3600,
        validation_alias="REFRESH_TOKEN_VALIDITY_S",
        description=(
            "How long the browser keeps the refresh token cookie, seconds: the app client's "
            "refresh token validity (Cognito's default, 30 days)."
        ),
    )
    jwks_refetch_interval_s: float = Field(
        default=30.0,
        validation_alias="JWKS_REFETCH_INTERVAL_S",
        description="Minimum gap between two JWKS fetches for unknown key ids.",
    )

    @property
    def base_url(self) -> str:
        """Cognito JSON API base URL (no trailing slash)."""
        return (self.endpoint or f"https://cognito-idp.{self.region}.amazonaws.com").rstrip("/")

    @property
    def issuer(self) -> str:
        """The ``iss`` claim Cognito puts in this pool's tokens (moto uses the same form)."""
        return f"https://cognito-idp.{self.region}.amazonaws.com/{self.user_pool_id}"


class StripeSettings(Section):
    """Payments: Stripe (ARCHITECTURE "Payments")."""

    api_base: str = Field(default="https://api.stripe.com", validation_alias="STRIPE_API_BASE")
    secret_key: SecretStr = Field(default=SecretStr(""), validation_alias="STRIPE_SECRET_KEY")
    publishable_key: str = Field(default="", validation_alias="STRIPE_PUBLISHABLE_KEY")
    js_url: str = Field(default="https://js.stripe.com/v3/", validation_alias="STRIPE_JS_URL")
    webhook_secret: SecretStr = Field(
        default=SecretStr(""), validation_alias="STRIPE_WEBHOOK_SECRET"
    )
    plan_id: str = Field(
        default="", validation_alias="STRIPE_PLAN_ID", description="The $20/unit monthly Plan's id."
    )
    timeout_s: float = Field(default=10.0, validation_alias="STRIPE_TIMEOUT_S")


class MailSettings(Section):
    """Email the console sends itself over SMTP (api/adapters/mail.py: usage alerts, lost-domain
    notices); Cognito still sends its own (codes, temporary passwords)."""

    smtp_host: str = Field(
        default="",
        validation_alias="SMTP_HOST",
        description="SMTP relay host, e.g. email-smtp.us-east-1.amazonaws.com.",
    )
    smtp_port: int = Field(
        default=587, ge=1, le=65535, validation_alias="SMTP_PORT", description="SMTP relay port."
    )
    smtp_security: Literal["starttls", "tls", "none"] = Field(
        default="starttls",
        validation_alias="SMTP_SECURITY",
        description="STARTTLS (587), implicit TLS (465), or none (loopback sinks only).",
    )
    smtp_username: str = Field(
        default="", validation_alias="SMTP_USERNAME", description="SMTP AUTH user; empty: no AUTH."
    )
    smtp_password: SecretStr = Field(
        default=SecretStr(""), validation_alias="SMTP_PASSWORD", description="SMTP AUTH password."
    )
    smtp_timeout_s: float = Field(
        default=10.0, gt=0, validation_alias="SMTP_TIMEOUT_S", description="Seconds per SMTP step."
    )
    mail_from: str = Field(
        default="",
        validation_alias="MAIL_FROM",
        description=(
            "Sender of the console's own emails, an address the relay may send from, e.g. "
            "'Console <no-reply@example.com>'."
        ),
    )
    dev_mailbox_path: str = Field(
        default="",
        validation_alias="DEV_MAILBOX_PATH",
        description="Development only: the SMTP sink's file that /dev/mailbox shows.",
    )


class DnsSettings(Section):
    """TXT lookups with dnspython (api/adapters/dns_resolver.py) for domain verification."""

    nameservers: list[str] = Field(
        default_factory=list,
        validation_alias="DNS_NAMESERVERS",
        description=(
            "IP addresses of the nameservers to ask, as a JSON list such as "
            '["10.0.0.2"]; empty uses the system resolver (/etc/resolv.conf).'
        ),
    )
    port: int = Field(
        default=53, validation_alias="DNS_PORT", description="Port of those nameservers."
    )
    timeout_s: float = Field(
        default=2.0,
        validation_alias="DNS_TIMEOUT_S",
        description="Seconds to wait for one nameserver before trying the next.",
    )
    lifetime_s: float = Field(
        default=5.0,
        validation_alias="DNS_LIFETIME_S",
        description=(
            "Seconds one TXT lookup may take in all (retries included); past it Verify "
            "answers 503 'We could not reach DNS; try again'."
        ),
    )


class SignInSettings(Section):
    """Sign-in (api/identity/sign_in; README "Sign-in and abuse limits").

    Sign-in attempts (password sign-in, new-password answer, reset code) are counted in
    PostgreSQL so the limits hold across replicas (api/ratelimit.py). Failures back off per
    (email, client address), so nobody can lock another person out from one address; the
    per-email ceiling is only a loose bound against guessing from many addresses. The other
    limits are the sign-in routes' throttles (api/identity/sign_in/throttles.py), per client
    address and per account, in windows of an hour.
    """

    limit_per_email: int = Field(
        default=100,
        validation_alias="SIGN_IN_LIMIT_PER_EMAIL",
        description="Failed attempts per email per window, from all addresses together.",
    )
    limit_per_address: int = Field(
        default=100,
        validation_alias="SIGN_IN_LIMIT_PER_ADDRESS",
        description="Attempts per client IP address per window.",
    )
    backoff_free_failures: int = Field(
        default=5,
        ge=1,
        validation_alias="SIGN_IN_BACKOFF_FREE_FAILURES",
        description="Failed attempts of one email from one address before the waits start.",
    )
    backoff_base_s: int = Field(
        default=2,
        ge=1,
        validation_alias="SIGN_IN_BACKOFF_BASE_S",
        description="The first wait, seconds; each further failure doubles it.",
    )
    backoff_max_s: int = Field(
        default=900,
        ge=1,
        validation_alias="SIGN_IN_BACKOFF_MAX_S",
        description="The longest wait, seconds.",
    )
    limit_window_s: int = Field(
        default=900,
        validation_alias="SIGN_IN_LIMIT_WINDOW_S",
        description="Window length, seconds.",
    )
    registration_limit_per_address: int = Field(
        default=10,
        validation_alias="REGISTRATION_LIMIT_PER_ADDRESS",
        description="Registrations per client address per hour.",
    )
    email_verification_limit_per_account: int = Field(
        default=10,
        validation_alias="EMAIL_VERIFICATION_LIMIT_PER_ACCOUNT",
        description=(
            "Email verification requests per account per hour: codes sent (each one emails "
            "the address) and codes entered."
        ),
    )
    email_verification_limit_per_address: int = Field(
        default=50,
        validation_alias="EMAIL_VERIFICATION_LIMIT_PER_ADDRESS",
        description="Email verification requests per client address per hour.",
    )
    session_token_limit_per_address: int = Field(
        default=60,
        validation_alias="SESSION_TOKEN_LIMIT_PER_ADDRESS",
        description="Hosted-UI code exchanges per client address per hour (each asks Cognito).",
    )
    session_refresh_limit_per_address: int = Field(
        default=600,
        validation_alias="SESSION_REFRESH_LIMIT_PER_ADDRESS",
        description="Token refreshes per client address per hour (each asks Cognito).",
    )
    sso_accounts_limit_per_address: int = Field(
        default=120,
        validation_alias="SSO_ACCOUNTS_LIMIT_PER_ADDRESS",
        description="Joinable-account lookups per client address per hour (each asks Cognito).",
    )
    reset_limit_per_email_and_address: int = Field(
        default=5,
        validation_alias="RESET_LIMIT_PER_EMAIL_AND_ADDRESS",
        description=(
            "Password-reset requests per email from one client address per window; counted "
            "apart from sign-in attempts."
        ),
    )
    reset_emails_per_recipient_per_day: int = Field(
        default=10,
        validation_alias="RESET_EMAILS_PER_RECIPIENT_PER_DAY",
        description="Password-reset emails to one address per day, whoever asks (UTC days).",
    )


class TwoStepSettings(Section):
    """Two-step sign-in (api/identity/mfa; README "Two-step sign-in"). Wrong authenticator-app
    codes lock a user's code step, per user, from every address and across password sign-ins:
    only a right code resets it."""

    setup_limit_per_account: int = Field(
        default=30,
        validation_alias="TWO_STEP_SETUP_LIMIT_PER_ACCOUNT",
        description=(
            "Two-step sign-in set-up requests per account per hour: new authenticator secrets "
            "(AssociateSoftwareToken) and codes entered to confirm one."
        ),
    )
    setup_limit_per_address: int = Field(
        default=60,
        validation_alias="TWO_STEP_SETUP_LIMIT_PER_ADDRESS",
        description="Two-step sign-in set-up requests per client address per hour.",
    )
    lock_free_failures: int = Field(
        default=5,
        ge=1,
        validation_alias="TWO_STEP_LOCK_FREE_FAILURES",
        description="Wrong codes of one user in a row before their code step locks.",
    )
    lock_base_s: int = Field(
        default=900,
        ge=1,
        validation_alias="TWO_STEP_LOCK_BASE_S",
        description="The first lock, seconds; each further wrong code doubles it.",
    )
    lock_max_s: int = Field(
        default=86_400,
        ge=1,
        validation_alias="TWO_STEP_LOCK_MAX_S",
        description="The longest lock, seconds.",
    )


class MembershipSettings(Section):
    """Who may join (api/identity/membership, and the invitations of User Management and of a
    directory; README "Roles and invitations"): invitations, and the pool users a crash left
    without a console row."""

    invitation_validity_days: int = Field(
        default=7,
        ge=1,
        le=365,
        validation_alias="INVITATION_VALIDITY_DAYS",
        description=(
            "Days an invitation stays Pending before it shows as Expired and its temporary "
            "password is refused (Resend starts a new period). Keep it equal to the user "
            "pool's TemporaryPasswordValidityDays."
        ),
    )
    invite_limit_per_account: int = Field(
        default=50,
        validation_alias="INVITE_LIMIT_PER_ACCOUNT",
        description="Invitations per account per hour.",
    )
    invite_limit_per_address: int = Field(
        default=100,
        validation_alias="INVITE_LIMIT_PER_ADDRESS",
        description="Invitations per client address per hour.",
    )
    invitations_per_recipient_per_day: int = Field(
        default=5,
        validation_alias="INVITATIONS_PER_RECIPIENT_PER_DAY",
        description="Invitations to one email address per day, from all accounts (UTC days).",
    )
    orphan_user_cleanup_cron: str = Field(
        default="*/5 * * * *",
        validation_alias="ORPHAN_USER_CLEANUP_CRON",
        description=(
            "When the job worker deletes the pool users whose registration or invitation never "
            "committed (cron, UTC; api/identity/membership/pool_users.py); empty: never."
        ),
    )
    orphan_user_age_min: int = Field(
        default=30,
        ge=5,
        validation_alias="ORPHAN_USER_AGE_MIN",
        description=(
            "Minutes after its creation began that a pool user without a console row is "
            "deleted (far longer than any request lives)."
        ),
    )

    @field_validator("orphan_user_cleanup_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class SsoSettings(Section):
    """Single sign-on (api/identity/sso): domain verification for Google single sign-on (README
    "Verified domains", SPEC 9 "domain box") and its daily re-check, SAML connections."""

    domain_recheck_interval_s: int = Field(
        default=24 * 3600,
        validation_alias="DOMAIN_RECHECK_INTERVAL_S",
        description="Seconds between two checks of a verified domain's TXT record (daily).",
    )
    domain_recheck_cron: str = Field(
        default="*/10 * * * *",
        validation_alias="DOMAIN_RECHECK_CRON",
        description=(
            "When the job worker looks for verified domains due a re-check (cron, UTC; "
            'README "Background work"); empty: never (run '
            "`python -m api.app.commands.recheck` instead)."
        ),
    )
    domain_verify_limit_per_account: int = Field(
        default=30,
        validation_alias="DOMAIN_VERIFY_LIMIT_PER_ACCOUNT",
        description="Domain Verify checks per account per hour (each asks DNS).",
    )
    domain_verify_limit_per_address: int = Field(
        default=60,
        validation_alias="DOMAIN_VERIFY_LIMIT_PER_ADDRESS",
        description="Domain Verify checks per client address per hour.",
    )
    dns_lookups_per_replica: int = Field(
        default=20,
        ge=1,
        validation_alias="DNS_LOOKUPS_PER_REPLICA",
        description=(
            "Domain Verify DNS lookups one API process runs at once; more are refused with 429."
        ),
    )
    saml_metadata_limit_per_account: int = Field(
        default=20,
        validation_alias="SAML_METADATA_LIMIT_PER_ACCOUNT",
        description="SAML set-up saves per account per hour (each reads the identity "
        "provider's metadata, a metadata URL is fetched, and asks Cognito).",
    )
    saml_metadata_limit_per_address: int = Field(
        default=40,
        validation_alias="SAML_METADATA_LIMIT_PER_ADDRESS",
        description="SAML set-up saves per client address per hour.",
    )
    saml_upkeep_cron: str = Field(
        default="23 * * * *",
        validation_alias="SAML_UPKEEP_CRON",
        description=(
            "When the job worker fetches again the SAML metadata URLs last fetched a day ago "
            "and announces signing certificates expiring within 30 days (cron, UTC; "
            "api/identity/sso/saml_refresh.py); empty: never."
        ),
    )

    @field_validator("domain_recheck_cron", "saml_upkeep_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class BillingSettings(Section):
    """Billing (api/billing): the payment method and invoices' throttles, and the
    reconciliation with Stripe on the job worker."""

    reconcile_cron: str = Field(
        default="40 3 * * *",
        validation_alias="BILLING_RECONCILE_CRON",
        description=(
            "When the job worker compares every account with Stripe (cron, UTC; "
            "api/billing/reconcile.py); empty: never."
        ),
    )
    reconcile_fix: bool = Field(
        default=False,
        validation_alias="BILLING_RECONCILE_FIX",
        description=(
            "Whether the worker's reconciliation repairs what differs (Stripe wins) or only "
            "reports it (the job then fails, naming each difference in the worker's log)."
        ),
    )
    card_limit_per_account: int = Field(
        default=10,
        validation_alias="CARD_LIMIT_PER_ACCOUNT",
        description="Payment-method changes per account per hour (card testing).",
    )
    card_limit_per_address: int = Field(
        default=20,
        validation_alias="CARD_LIMIT_PER_ADDRESS",
        description="Payment-method changes per client address per hour.",
    )
    invoices_limit_per_account: int = Field(
        default=120,
        validation_alias="INVOICES_LIMIT_PER_ACCOUNT",
        description="Invoice list pages per account per hour.",
    )
    invoices_limit_per_address: int = Field(
        default=240,
        validation_alias="INVOICES_LIMIT_PER_ADDRESS",
        description="Invoice list pages per client address per hour.",
    )

    @field_validator("reconcile_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class KeysSettings(Section):
    """API keys (api/keys): sealed at rest (README "API keys", api/kernel/secretbox.py) with
    AES-256-GCM keys by id, and their reveals and rolls throttled."""

    encryption_keys: SecretStr = Field(
        default=SecretStr(""),
        validation_alias="API_KEY_ENCRYPTION_KEYS",
        description=(
            'JSON object of key id to 32 random bytes in base64, e.g. {"2026-11": "..."} '
            "(python -m api.app.commands.new_key makes one)."
        ),
    )
    encryption_key_id: str = Field(
        default="",
        validation_alias="API_KEY_ENCRYPTION_KEY_ID",
        description="The id in API_KEY_ENCRYPTION_KEYS new API keys are sealed with.",
    )
    limit_per_account: int = Field(
        default=30,
        validation_alias="API_KEY_LIMIT_PER_ACCOUNT",
        description="API key reveals and rolls per account per hour.",
    )
    limit_per_address: int = Field(
        default=60,
        validation_alias="API_KEY_LIMIT_PER_ADDRESS",
        description="API key reveals and rolls per client address per hour.",
    )


class UsageSettings(Section):
    """Usage (api/usage): the metering intake's limits (README "Metering intake") and how long
    the hourly rollups are kept."""

    metering_limit_per_account: int = Field(
        default=3000,
        validation_alias="METERING_LIMIT_PER_ACCOUNT",
        description="Metering batches per account per minute.",
    )
    metering_limit_per_address: int = Field(
        default=6000,
        validation_alias="METERING_LIMIT_PER_ADDRESS",
        description="Metering batches per client address per minute.",
    )
    metering_records_limit_per_account: int = Field(
        default=600_000,
        validation_alias="METERING_RECORDS_LIMIT_PER_ACCOUNT",
        description=(
            "Usage records per account per minute, however they are batched (beside the "
            "batch limits); a refused batch counts none."
        ),
    )
    hourly_retention_cron: str = Field(
        default="50 4 * * *",
        validation_alias="USAGE_HOURLY_RETENTION_CRON",
        description=(
            "When the job worker deletes the hourly usage rollups older than 400 days, past "
            "any account's retention (cron, UTC); empty: never."
        ),
    )

    @field_validator("hourly_retention_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class AccountSettings(Section):
    """The account (api/account): the plan constants (SPEC 9) new accounts get; the account
    row keeps its own copy."""

    unit_plan_requests: int = Field(
        default=1000,
        validation_alias="UNIT_PLAN_REQUESTS",
        description="Requests per unit per cycle.",
    )
    free_plan_requests: int = Field(
        default=100,
        validation_alias="FREE_PLAN_REQUESTS",
        description="Requests per cycle at 0 units.",
    )


class AuditSettings(Section):
    """The audit log (api/audit, read by api/activity; README "Audit log"): how long it keeps
    events, and when the job worker keeps its month partitions."""

    retention_days: int = Field(
        default=365,
        ge=30,
        validation_alias="AUDIT_RETENTION_DAYS",
        description="Days the audit log keeps an event at least (whole months are dropped).",
    )
    retention_cron: str = Field(
        default="15 */6 * * *",
        validation_alias="AUDIT_RETENTION_CRON",
        description=(
            "When the job worker creates the audit log's coming month partitions and drops "
            "expired ones (cron, UTC); empty: never (run `python -m api.app.commands.retention` "
            "instead)."
        ),
    )

    @field_validator("retention_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class DirectorySettings(Section):
    """Directory sync (api/identity/directory; README "Directory sync (SCIM)")."""

    scim_limit_per_account: int = Field(
        default=1200,
        # Read from SCIM_LIMIT_PER_TOKEN too, its name while the limit was per token.
        validation_alias=AliasChoices("SCIM_LIMIT_PER_ACCOUNT", "SCIM_LIMIT_PER_TOKEN"),
        description=(
            'SCIM requests per account per minute, all its tokens together (README "Directory '
            "sync (SCIM)\"): an identity provider's full sync of a large directory stays under "
            "it. Also read from SCIM_LIMIT_PER_TOKEN."
        ),
    )


class SessionSettings(Section):
    """Sign-in sessions (api/identity/sessions; README "Sessions")."""

    retention_cron: str = Field(
        default="35 4 * * *",
        validation_alias="SESSION_RETENTION_CRON",
        description=(
            "When the job worker deletes the sign-in sessions inactive for 90 days (cron, UTC); "
            "empty: never."
        ),
    )

    @field_validator("retention_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class AccessTokenSettings(Section):
    """Access tokens for automation (api/identity/access_tokens; README "Automation")."""

    limit_per_minute: int = Field(
        default=600,
        ge=1,
        validation_alias="ACCESS_TOKEN_LIMIT_PER_MINUTE",
        description=(
            'Requests per access token per minute (each token its own limit; README "Automation").'
        ),
    )
    expiry_cron: str = Field(
        default="17 * * * *",
        validation_alias="ACCESS_TOKEN_EXPIRY_CRON",
        description=(
            "When the job worker emails the creator and the Owners about access tokens that "
            "expire within seven days or have expired (cron, UTC); empty: never."
        ),
    )

    @field_validator("expiry_cron")
    @classmethod
    def _schedules(cls, value: str, info: ValidationInfo) -> str:
        return cls._cron(value, info)


class Settings(BaseSettings):
    """All settings of the API process and the job worker: the process's own here, each
    vendor's and each feature's in its section (see the module docstring).

    Units: timeouts in seconds, request counts in requests, money in whole US dollars.
    """

    model_config = SettingsConfigDict(env_file=None, extra="ignore", frozen=True)

    environment: str = Field(
        default="production",
        description="'production' or 'development'; only development may mount stand-ins.",
    )
    dev_stand_ins: bool = Field(
        default=False,
        description=(
            "Mount the development stand-ins (hosted-UI sign-in page, /dev/mailbox). "
            "Only `make dev` and the tests turn this on; it is refused in production."
        ),
    )
    database_url: str = Field(
        default="",
        description="SQLAlchemy URL, e.g. postgresql+asyncpg://user@127.0.0.1:5432/console.",
    )
    db_pool_size: int = Field(default=20, description="Connections per process (no overflow).")
    db_side_pool_size: int = Field(
        default=5,
        description=(
            "Connections per process, besides DB_POOL_SIZE, for the writes that commit on their "
            "own while a request holds a connection of the main pool (rate-limit counters, "
            "sign-in backoff, refused sign-ins in the audit log)."
        ),
    )
    log_format: str = Field(default="json", description="'json' or 'console'.")
    log_level: str = "INFO"
    web_dist: str = Field(
        default="",
        description="Folder of the built SPA to serve at /; empty serves none (CDN deploys).",
    )
    cors_allowed_origins: list[str] = Field(
        default_factory=list,
        description=(
            "Origins allowed to call the API from a browser when the SPA is served elsewhere "
            '(a CDN), as a JSON list: ["https://console.example.com"]. Empty: same origin only.'
        ),
    )
    trusted_proxies: list[str] = Field(
        default_factory=list,
        description=(
            "Addresses or CIDRs of the proxies in front of the API, as a JSON list such as "
            '["10.0.0.0/8"]: only their X-Forwarded-For is believed '
            "(api/kernel/http/client_address.py)."
        ),
    )
    public_url: str = Field(
        default="http://127.0.0.1:8000",
        description="Origin the browser uses for this API and the SPA.",
    )
    shutdown_drain_s: float = Field(
        default=2.0,
        description=(
            "After SIGTERM, seconds a replica keeps accepting requests while /readyz answers "
            "503, so load balancers that probe it stop sending before it stops listening "
            "(python -m api.app.commands.serve; Kubernetes' preStop sleep comes before this)."
        ),
    )
    shutdown_grace_s: float = Field(
        default=20.0,
        description=(
            "Then, seconds its in-flight requests get to finish before they are cancelled; "
            "the pool is closed after them and the process exits 0 (python -m "
            "api.app.commands.serve)."
        ),
    )
    vendor_budget_s: float = Field(
        default=7.0,
        description=(
            "Seconds one request may spend in all its Cognito and Stripe calls together; "
            "past it the request answers 503 (api/kernel/http/vendor_budget.py)."
        ),
    )
    job_retention_days: int = Field(
        default=30,
        ge=1,
        description="Days finished jobs (succeeded, failed, cancelled) stay in procrastinate_jobs.",
    )
    job_stalled_after_s: float = Field(
        default=60.0,
        ge=30.0,
        description=(
            "Seconds without a heartbeat (a worker sends one every 10 s) after which a worker "
            'is taken for dead and its running jobs are retried (README "Background work").'
        ),
    )
    job_stalled_cron: str = Field(
        default="* * * * *",
        description=(
            "When a job worker looks for the jobs of dead workers (cron, UTC; a sixth field "
            "counts seconds)."
        ),
    )

    @field_validator("job_stalled_cron")
    @classmethod
    def _stalled_schedule(cls, value: str) -> str:
        if not croniter.is_valid(value):
            raise ValueError(f"JOB_STALLED_CRON: {value!r} is not a cron expression")
        return value

    cognito: CognitoSettings = Field(default_factory=CognitoSettings)
    stripe: StripeSettings = Field(default_factory=StripeSettings)
    mail: MailSettings = Field(default_factory=MailSettings)
    dns: DnsSettings = Field(default_factory=DnsSettings)
    sign_in: SignInSettings = Field(default_factory=SignInSettings)
    two_step: TwoStepSettings = Field(default_factory=TwoStepSettings)
    membership: MembershipSettings = Field(default_factory=MembershipSettings)
    sso: SsoSettings = Field(default_factory=SsoSettings)
    billing: BillingSettings = Field(default_factory=BillingSettings)
    keys: KeysSettings = Field(default_factory=KeysSettings)
    usage: UsageSettings = Field(default_factory=UsageSettings)
    account: AccountSettings = Field(default_factory=AccountSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)
    directory: DirectorySettings = Field(default_factory=DirectorySettings)
    access_tokens: AccessTokenSettings = Field(default_factory=AccessTokenSettings)
    sessions: SessionSettings = Field(default_factory=SessionSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The arguments first, then the environment, read by variable (no ``.env`` file or
        secrets folder, as before)."""
        return init_settings, _SectionedEnvironment(settings_cls)

    @model_validator(mode="before")
    @classmethod
    def _into_sections(cls, data: Any) -> Any:
        return _sectioned(data) if isinstance(data, dict) else data

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for cidr in value:
            try:
                parse_networks([cidr])
            except ValueError as exc:
                raise ValueError(f"TRUSTED_PROXIES: {cidr!r} is not an address or CIDR") from exc
        return value

    @classmethod
    def sections(cls) -> dict[str, type[Section]]:
        """Every section's class, by its attribute (``"stripe"``...)."""
        return _sections()

    @classmethod
    def names(cls) -> frozenset[str]:
        """The environment variable of every setting (``DATABASE_URL``...), each by its own
        name (not an older one also read, such as ``SCIM_LIMIT_PER_TOKEN``)."""
        process = {name.upper() for name in cls.model_fields if name not in _sections()}
        sectioned = {v for s in _sections().values() for v in s.variables().values()}
        return frozenset(process | sectioned)

    def value(self, name: str) -> object:
        """The setting read from the environment variable ``name`` (``"DNS_PORT"``, any
        case), for the declarations that name their settings (a feature's throttles and
        periodic tasks): the dev stack changes those variables, the app reads them through
        this.

        Raises:
            KeyError: no setting is read from ``name``.
        """
        key = name.lower()
        if key in type(self).model_fields and key not in _sections():
            return getattr(self, key)
        if key not in _index():
            raise KeyError(name)
        section, field = _index()[key]
        return getattr(getattr(self, section), field)

    def updated(self, **changes: object) -> Settings:
        """A copy with the settings ``changes`` names changed, each by its environment
        variable in lower case (``registration_limit_per_address=2``), validated as they
        would be read.

        Raises:
            pydantic.ValidationError: a value the setting refuses.
        """
        values: dict[str, object] = {name: getattr(self, name) for name in type(self).model_fields}
        return type(self).model_validate({**values, **changes})

    @property
    def trusted_networks(self) -> tuple[Network, ...]:
        """``trusted_proxies`` as networks."""
        return parse_networks(self.trusted_proxies)

    def check(self) -> None:
        """Refuse unsafe combinations; ``create_app`` calls this before mounting anything.

        With ``DEV_STAND_INS`` on, every vendor setting must point at a local stand-in, so a
        stand-in (the hosted-UI page that signs anyone in, the mailbox that shows temporary
        passwords, the DNS records anyone can set) can never work against a real user pool,
        Stripe account or DNS: the Cognito API, the SMTP relay, Stripe API and Stripe.js must be on
        loopback (``localhost``, 127.0.0.0/8, ``::1``), the hosted UI on loopback or at
        ``PUBLIC_URL`` itself (the stand-in this app serves), and ``DNS_NAMESERVERS`` must be
        loopback addresses (not empty, which means the system's resolver).
        In development no Stripe key may be a live one. SMTP without TLS only to loopback
        (with stand-ins, the loopback rule above covers it).

        Raises:
            ValueError: naming the offending setting: stand-ins outside development, a vendor
                setting that is not local while stand-ins are on, a live Stripe key in
                development, or ``SMTP_SECURITY=none`` to a host that is not loopback.
        """
        if self.dev_stand_ins and self.environment != "development":
            raise ValueError("DEV_STAND_INS may only be set when ENVIRONMENT=development")
        smtp_in_clear = self.mail.smtp_security == "none" and self.mail.smtp_host
        if (
            not self.dev_stand_ins
            and smtp_in_clear
            and not is_loopback_url(f"smtp://{self.mail.smtp_host}")
        ):
            raise ValueError(
                f"SMTP_SECURITY=none sends mail and SMTP_PASSWORD in clear text; it is only "
                f"allowed to a loopback SMTP_HOST, not {self.mail.smtp_host!r}"
            )
        if self.dev_stand_ins or self.environment == "development":
            keys = {
                "STRIPE_SECRET_KEY": self.stripe.secret_key.get_secret_value(),
                "STRIPE_PUBLISHABLE_KEY": self.stripe.publishable_key,
            }
            for name, key in keys.items():
                if key.startswith(_LIVE_KEY_PREFIXES):
                    raise ValueError(
                        f"{name} is a live Stripe key; development and the stand-ins take "
                        "test keys only"
                    )
        if not self.dev_stand_ins:
            return
        if not self.cognito.endpoint:
            raise ValueError(
                "COGNITO_ENDPOINT is empty, which means real AWS Cognito; with DEV_STAND_INS "
                "it must point at the local stand-in (moto), e.g. http://127.0.0.1:4566"
            )
        if not self.dns.nameservers or not all(
            _is_loopback_address(a) for a in self.dns.nameservers
        ):
            raise ValueError(
                f"DNS_NAMESERVERS={self.dns.nameservers!r} is not a list of loopback addresses; "
                "with DEV_STAND_INS domain checks must ask the local DNS stand-in, e.g. "
                '["127.0.0.1"]'
            )
        local_only = {
            "COGNITO_ENDPOINT": self.cognito.endpoint,
            "SMTP_HOST": f"smtp://{self.mail.smtp_host}",
            "STRIPE_API_BASE": self.stripe.api_base,
            "STRIPE_JS_URL": self.stripe.js_url,
        }
        # The hosted UI may also be this very app (the stand-in is mounted here): the API
        # tests' PUBLIC_URL is http://testserver, which never leaves the process.
        hosted_ui = self.cognito.hosted_ui_url
        if not hosted_ui or _origin(hosted_ui) != _origin(self.public_url):
            local_only["COGNITO_HOSTED_UI_URL"] = hosted_ui
        for name, url in local_only.items():
            if not is_loopback_url(url):
                raise ValueError(
                    f"{name}={url!r} is not a loopback address; with DEV_STAND_INS every "
                    "vendor setting must point at a local stand-in (localhost, 127.0.0.0/8 "
                    "or ::1)"
                )

    def check_database(self) -> None:
        """Refuse to serve without a database (the contract generator builds apps without one).

        Raises:
            ValueError: ``DATABASE_URL`` is not set.
        """
        if not self.database_url:
            raise ValueError("DATABASE_URL is not set")


@cache
def _sections() -> dict[str, type[Section]]:
    return {
        name: field.annotation
        for name, field in Settings.model_fields.items()
        if isinstance(field.annotation, type) and issubclass(field.annotation, Section)
    }


@cache
def _index() -> dict[str, tuple[str, str]]:
    """Every environment variable of a section, older names included, in lower case: its
    section and field."""
    return {
        variable.lower(): (section, name)
        for section, model in _sections().items()
        for name, field in model.model_fields.items()
        for variable in _variables(field)
    }


def _section_values(section: str, given: object) -> object:
    """The values of ``section`` given as a model or a mapping, by their variables' own
    names (what the section validates, so an error names the variable); anything else as it
    is (the section refuses it)."""
    model = _sections()[section]
    variables = model.variables()
    if isinstance(given, model):
        return {variables[name]: getattr(given, name) for name in variables}
    if not isinstance(given, Mapping):
        return given
    values: dict[str, object] = {}
    for key, value in given.items():
        found = _index().get(str(key).lower())
        if key in variables:
            values[variables[key]] = value
        elif found is not None and found[0] == section:
            values[variables[found[1]]] = value
        else:
            values[key] = value  # refused by the section (extra="forbid"), naming the key
    return values


def _sectioned(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with each section's values under their variables' names and every variable
    given at the top (``registration_limit_per_address``, any case) moved into its section,
    where it wins over the section's own value."""
    result = dict(data)
    for section in _sections():
        if section in result:
            result[section] = _section_values(section, result[section])
    for key in list(result):
        found = _index().get(key.lower()) if key not in Settings.model_fields else None
        if found is None:
            continue
        section, name = found
        values = result.setdefault(section, {})
        if isinstance(values, dict):
            values[_sections()[section].variables()[name]] = result.pop(key)
    return result


class _FlatBase(BaseSettings):
    """The base of :func:`_flat_environment` (read, never validated)."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore")


@cache
def _flat_environment() -> type[BaseSettings]:
    """One flat settings class of every variable: the process's settings by their names,
    each section's field by its variable (with its older names), of the field's type, so
    pydantic-settings' environment source reads and decodes them as it did the flat
    :class:`Settings`."""
    fields: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        if name not in _sections():
            fields[name] = (field.annotation, None)
    for model in _sections().values():
        for field in model.model_fields.values():
            variables = _variables(field)
            alias = AliasChoices(*variables) if len(variables) > 1 else None
            fields[variables[0]] = (field.annotation, Field(default=None, validation_alias=alias))
    return create_model("_Environment", __base__=_FlatBase, **fields)


class _SectionedEnvironment(PydanticBaseSettingsSource):
    """The environment, read through :func:`_flat_environment`, each section's variables in
    its section."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)
        self._flat = EnvSettingsSource(_flat_environment())

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: :meth:`__call__` reads every variable at once."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return _sectioned(self._flat())
