"""Service configuration, read once from the environment (pydantic-settings).

Every setting is an environment variable of the same name in upper case (``DATABASE_URL``,
``COGNITO_USER_POOL_ID``...). Secrets have no working default outside development: the dev
stack (``python -m devstack``) fills them in for the local stand-ins, and production must
set them. The README lists every setting.
"""

from __future__ import annotations

import ipaddress
from typing import Literal
from urllib.parse import urlsplit

from croniter import croniter
from pydantic import AliasChoices, Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

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


class Settings(BaseSettings):
    """All settings of the API process.

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

    # Identity provider: Amazon Cognito user pool (ARCHITECTURE "Identity").
    aws_region: str = "us-east-1"
    aws_access_key_id: str = ""
    aws_secret_access_key: SecretStr = SecretStr("")
    cognito_endpoint: str = Field(
        default="",
        description="Cognito API base URL; empty means https://cognito-idp.<region>.amazonaws.com.",
    )
    cognito_user_pool_id: str = ""
    cognito_client_id: str = ""
    cognito_hosted_ui_url: str = Field(
        default="",
        description="Hosted UI domain, e.g. https://auth.example.com (serves /oauth2/authorize).",
    )
    cognito_timeout_s: float = 5.0
    vendor_budget_s: float = Field(
        default=7.0,
        description=(
            "Seconds one request may spend in all its Cognito and Stripe calls together; "
            "past it the request answers 503 (api/kernel/http/vendor_budget.py)."
        ),
    )
    refresh_token_validity_s: int = Field(
        default=30 * 24 * 3600,
        description=(
            "How long the browser keeps the refresh token cookie, seconds: the app client's "
            "refresh token validity (Cognito's default, 30 days)."
        ),
    )
    jwks_refetch_interval_s: float = Field(
        default=30.0, description="Minimum gap between two JWKS fetches for unknown key ids."
    )

    # Payments: Stripe (ARCHITECTURE "Payments").
    stripe_api_base: str = "https://api.stripe.com"
    stripe_secret_key: SecretStr = SecretStr("")
    stripe_publishable_key: str = ""
    stripe_js_url: str = "https://js.stripe.com/v3/"
    stripe_webhook_secret: SecretStr = SecretStr("")
    stripe_plan_id: str = Field(default="", description="The $20/unit monthly Plan's id.")
    stripe_timeout_s: float = 10.0

    # Email the console sends itself over SMTP (api/adapters/mail.py: usage alerts,
    # lost-domain notices); Cognito still sends its own (codes, temporary passwords).
    smtp_host: str = Field(
        default="", description="SMTP relay host, e.g. email-smtp.us-east-1.amazonaws.com."
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="SMTP relay port.")
    smtp_security: Literal["starttls", "tls", "none"] = Field(
        default="starttls",
        description="STARTTLS (587), implicit TLS (465), or none (loopback sinks only).",
    )
    smtp_username: str = Field(default="", description="SMTP AUTH user; empty: no AUTH.")
    smtp_password: SecretStr = Field(default=SecretStr(""), description="SMTP AUTH password.")
    smtp_timeout_s: float = Field(default=10.0, gt=0, description="Seconds per SMTP step.")
    # API keys at rest (README "API keys", api/kernel/secretbox.py): AES-256-GCM keys by id, and the
    # current.
    api_key_encryption_keys: SecretStr = Field(
        default=SecretStr(""),
        description=(
            'JSON object of key id to 32 random bytes in base64, e.g. {"2026-11": "..."} '
            "(python -m api.app.commands.new_key makes one)."
        ),
    )
    api_key_encryption_key_id: str = Field(
        default="", description="The id in API_KEY_ENCRYPTION_KEYS new API keys are sealed with."
    )
    dev_mailbox_path: str = Field(
        default="",
        description="Development only: the SMTP sink's file that /dev/mailbox shows.",
    )
    mail_from: str = Field(
        default="",
        description=(
            "Sender of the console's own emails, an address the relay may send from, e.g. "
            "'Console <no-reply@example.com>'."
        ),
    )

    # Domain verification for Google single sign-on (README "Verified domains", SPEC 9 "domain
    # box"): TXT lookups with dnspython (api/adapters/dns_resolver.py) and the daily re-check.
    dns_nameservers: list[str] = Field(
        default_factory=list,
        description=(
            "IP addresses of the nameservers to ask, as a JSON list such as "
            '["10.0.0.2"]; empty uses the system resolver (/etc/resolv.conf).'
        ),
    )
    dns_port: int = Field(default=53, description="Port of those nameservers.")
    dns_timeout_s: float = Field(
        default=2.0, description="Seconds to wait for one nameserver before trying the next."
    )
    dns_lifetime_s: float = Field(
        default=5.0,
        description=(
            "Seconds one TXT lookup may take in all (retries included); past it Verify "
            "answers 503 'We could not reach DNS; try again'."
        ),
    )
    domain_recheck_interval_s: int = Field(
        default=24 * 3600,
        description="Seconds between two checks of a verified domain's TXT record (daily).",
    )
    domain_recheck_cron: str = Field(
        default="*/10 * * * *",
        description=(
            "When the job worker looks for verified domains due a re-check (cron, UTC; "
            'README "Background work"); empty: never (run '
            "`python -m api.app.commands.recheck` instead)."
        ),
    )

    # Roles, invitations and the audit log (README "Roles and invitations", "Audit log").
    invitation_validity_days: int = Field(
        default=7,
        ge=1,
        le=365,
        description=(
            "Days an invitation stays Pending before it shows as Expired and its temporary "
            "password is refused (Resend starts a new period). Keep it equal to the user "
            "pool's TemporaryPasswordValidityDays."
        ),
    )
    audit_retention_days: int = Field(
        default=365,
        ge=30,
        description="Days the audit log keeps an event at least (whole months are dropped).",
    )
    audit_retention_cron: str = Field(
        default="15 */6 * * *",
        description=(
            "When the job worker creates the audit log's coming month partitions and drops "
            "expired ones (cron, UTC); empty: never (run `python -m api.app.commands.retention` "
            "instead)."
        ),
    )

    # Periodic upkeep on the job worker (README "Background work"): billing reconciliation,
    # pool users a crash left without a console row, finished jobs.
    billing_reconcile_cron: str = Field(
        default="40 3 * * *",
        description=(
            "When the job worker compares every account with Stripe (cron, UTC; "
            "api/billing/reconcile.py); empty: never."
        ),
    )
    billing_reconcile_fix: bool = Field(
        default=False,
        description=(
            "Whether the worker's reconciliation repairs what differs (Stripe wins) or only "
            "reports it (the job then fails, naming each difference in the worker's log)."
        ),
    )
    orphan_user_cleanup_cron: str = Field(
        default="*/5 * * * *",
        description=(
            "When the job worker deletes the pool users whose registration or invitation never "
            "committed (cron, UTC; api/identity/membership/pool_users.py); empty: never."
        ),
    )
    orphan_user_age_min: int = Field(
        default=30,
        ge=5,
        description=(
            "Minutes after its creation began that a pool user without a console row is "
            "deleted (far longer than any request lives)."
        ),
    )
    saml_upkeep_cron: str = Field(
        default="23 * * * *",
        description=(
            "When the job worker fetches again the SAML metadata URLs last fetched a day ago "
            "and announces signing certificates expiring within 30 days (cron, UTC; "
            "api/identity/sso/saml_refresh.py); empty: never."
        ),
    )
    job_retention_days: int = Field(
        default=30,
        ge=1,
        description="Days finished jobs (succeeded, failed, cancelled) stay in procrastinate_jobs.",
    )

    # Sign-in attempts (password sign-in, new-password answer, reset code), counted in
    # PostgreSQL so the limits hold across replicas (api/kernel/ratelimit). Failures back off per
    # (email, client address), so nobody can lock another person out from one address; the
    # per-email ceiling is only a loose bound against guessing from many addresses.
    sign_in_limit_per_email: int = Field(
        default=100,
        description="Failed attempts per email per window, from all addresses together.",
    )
    sign_in_limit_per_address: int = Field(
        default=100, description="Attempts per client IP address per window."
    )
    sign_in_backoff_free_failures: int = Field(
        default=5,
        ge=1,
        description="Failed attempts of one email from one address before the waits start.",
    )
    sign_in_backoff_base_s: int = Field(
        default=2,
        ge=1,
        description="The first wait, seconds; each further failure doubles it.",
    )
    sign_in_backoff_max_s: int = Field(default=900, ge=1, description="The longest wait, seconds.")
    sign_in_limit_window_s: int = Field(default=900, description="Window length, seconds.")
    # Abuse controls of the other actions that cost us or a vendor (README "Sign-in and abuse
    # limits"), per client address and per account; windows of an hour (metering: a minute).
    registration_limit_per_address: int = Field(
        default=10, description="Registrations per client address per hour."
    )
    invite_limit_per_account: int = Field(
        default=50, description="Invitations per account per hour."
    )
    invite_limit_per_address: int = Field(
        default=100, description="Invitations per client address per hour."
    )
    card_limit_per_account: int = Field(
        default=10, description="Payment-method changes per account per hour (card testing)."
    )
    card_limit_per_address: int = Field(
        default=20, description="Payment-method changes per client address per hour."
    )
    metering_limit_per_account: int = Field(
        default=3000, description="Metering batches per account per minute."
    )
    metering_records_limit_per_account: int = Field(
        default=600_000,
        description=(
            "Usage records per account per minute, however they are batched (beside the "
            "batch limits); a refused batch counts none."
        ),
    )
    metering_limit_per_address: int = Field(
        default=6000, description="Metering batches per client address per minute."
    )
    email_verification_limit_per_account: int = Field(
        default=10,
        description=(
            "Email verification requests per account per hour: codes sent (each one emails "
            "the address) and codes entered."
        ),
    )
    email_verification_limit_per_address: int = Field(
        default=50, description="Email verification requests per client address per hour."
    )
    two_step_setup_limit_per_account: int = Field(
        default=30,
        description=(
            "Two-step sign-in set-up requests per account per hour: new authenticator secrets "
            "(AssociateSoftwareToken) and codes entered to confirm one."
        ),
    )
    two_step_setup_limit_per_address: int = Field(
        default=60, description="Two-step sign-in set-up requests per client address per hour."
    )
    # Wrong authenticator-app codes lock a user's code step (README "Two-step sign-in"), per
    # user, from every address and across password sign-ins: only a right code resets it.
    two_step_lock_free_failures: int = Field(
        default=5,
        ge=1,
        description="Wrong codes of one user in a row before their code step locks.",
    )
    two_step_lock_base_s: int = Field(
        default=900,
        ge=1,
        description="The first lock, seconds; each further wrong code doubles it.",
    )
    two_step_lock_max_s: int = Field(default=86_400, ge=1, description="The longest lock, seconds.")
    invoices_limit_per_account: int = Field(
        default=120, description="Invoice list pages per account per hour."
    )
    invoices_limit_per_address: int = Field(
        default=240, description="Invoice list pages per client address per hour."
    )
    api_key_limit_per_account: int = Field(
        default=30, description="API key reveals and rolls per account per hour."
    )
    api_key_limit_per_address: int = Field(
        default=60, description="API key reveals and rolls per client address per hour."
    )
    domain_verify_limit_per_account: int = Field(
        default=30, description="Domain Verify checks per account per hour (each asks DNS)."
    )
    domain_verify_limit_per_address: int = Field(
        default=60, description="Domain Verify checks per client address per hour."
    )
    saml_metadata_limit_per_account: int = Field(
        default=20,
        description="SAML set-up saves per account per hour (each reads the identity "
        "provider's metadata, a metadata URL is fetched, and asks Cognito).",
    )
    saml_metadata_limit_per_address: int = Field(
        default=40, description="SAML set-up saves per client address per hour."
    )
    session_token_limit_per_address: int = Field(
        default=60,
        description="Hosted-UI code exchanges per client address per hour (each asks Cognito).",
    )
    session_refresh_limit_per_address: int = Field(
        default=600,
        description="Token refreshes per client address per hour (each asks Cognito).",
    )
    sso_accounts_limit_per_address: int = Field(
        default=120,
        description="Joinable-account lookups per client address per hour (each asks Cognito).",
    )
    scim_limit_per_account: int = Field(
        default=1200,
        # Read from SCIM_LIMIT_PER_TOKEN too, its name while the limit was per token.
        validation_alias=AliasChoices("scim_limit_per_account", "scim_limit_per_token"),
        description=(
            'SCIM requests per account per minute, all its tokens together (README "Directory '
            "sync (SCIM)\"): an identity provider's full sync of a large directory stays under "
            "it. Also read from SCIM_LIMIT_PER_TOKEN."
        ),
    )
    dns_lookups_per_replica: int = Field(
        default=20,
        ge=1,
        description=(
            "Domain Verify DNS lookups one API process runs at once; more are refused with 429."
        ),
    )
    reset_limit_per_email_and_address: int = Field(
        default=5,
        description=(
            "Password-reset requests per email from one client address per window; counted "
            "apart from sign-in attempts."
        ),
    )
    reset_emails_per_recipient_per_day: int = Field(
        default=10,
        description="Password-reset emails to one address per day, whoever asks (UTC days).",
    )
    invitations_per_recipient_per_day: int = Field(
        default=5,
        description="Invitations to one email address per day, from all accounts (UTC days).",
    )

    # Plan constants (SPEC 9): new accounts get these; the account row keeps its own copy.
    unit_plan_requests: int = Field(default=1000, description="Requests per unit per cycle.")
    free_plan_requests: int = Field(default=100, description="Requests per cycle at 0 units.")

    @field_validator(
        "domain_recheck_cron",
        "audit_retention_cron",
        "billing_reconcile_cron",
        "orphan_user_cleanup_cron",
        "saml_upkeep_cron",
    )
    @classmethod
    def _cron(cls, value: str, info: ValidationInfo) -> str:
        if value and not croniter.is_valid(value):
            name = (info.field_name or "").upper()
            raise ValueError(f"{name}: {value!r} is not a cron expression, e.g. '*/10 * * * *'")
        return value

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
    def names(cls) -> frozenset[str]:
        """The environment variable of every setting (``DATABASE_URL``...)."""
        return frozenset(name.upper() for name in cls.model_fields)

    def value(self, name: str) -> object:
        """The setting read from the environment variable ``name`` (``"DNS_PORT"``), for the
        declarations that name their settings (a feature's throttles and periodic tasks):
        the dev stack changes those variables, and the app reads them through this.

        Raises:
            KeyError: no setting is read from ``name``.
        """
        if name not in self.names():
            raise KeyError(name)
        return getattr(self, name.lower())

    @property
    def trusted_networks(self) -> tuple[Network, ...]:
        """``trusted_proxies`` as networks."""
        return parse_networks(self.trusted_proxies)

    @property
    def cognito_base_url(self) -> str:
        """Cognito JSON API base URL (no trailing slash)."""
        return (
            self.cognito_endpoint or f"https://cognito-idp.{self.aws_region}.amazonaws.com"
        ).rstrip("/")

    @property
    def cognito_issuer(self) -> str:
        """The ``iss`` claim Cognito puts in this pool's tokens (moto uses the same form)."""
        return f"https://cognito-idp.{self.aws_region}.amazonaws.com/{self.cognito_user_pool_id}"

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
        smtp_in_clear = self.smtp_security == "none" and self.smtp_host
        if (
            not self.dev_stand_ins
            and smtp_in_clear
            and not is_loopback_url(f"smtp://{self.smtp_host}")
        ):
            raise ValueError(
                f"SMTP_SECURITY=none sends mail and SMTP_PASSWORD in clear text; it is only "
                f"allowed to a loopback SMTP_HOST, not {self.smtp_host!r}"
            )
        if self.dev_stand_ins or self.environment == "development":
            keys = {
                "STRIPE_SECRET_KEY": self.stripe_secret_key.get_secret_value(),
                "STRIPE_PUBLISHABLE_KEY": self.stripe_publishable_key,
            }
            for name, key in keys.items():
                if key.startswith(_LIVE_KEY_PREFIXES):
                    raise ValueError(
                        f"{name} is a live Stripe key; development and the stand-ins take "
                        "test keys only"
                    )
        if not self.dev_stand_ins:
            return
        if not self.cognito_endpoint:
            raise ValueError(
                "COGNITO_ENDPOINT is empty, which means real AWS Cognito; with DEV_STAND_INS "
                "it must point at the local stand-in (moto), e.g. http://127.0.0.1:4566"
            )
        if not self.dns_nameservers or not all(
            _is_loopback_address(a) for a in self.dns_nameservers
        ):
            raise ValueError(
                f"DNS_NAMESERVERS={self.dns_nameservers!r} is not a list of loopback addresses; "
                "with DEV_STAND_INS domain checks must ask the local DNS stand-in, e.g. "
                '["127.0.0.1"]'
            )
        local_only = {
            "COGNITO_ENDPOINT": self.cognito_endpoint,
            "SMTP_HOST": f"smtp://{self.smtp_host}",
            "STRIPE_API_BASE": self.stripe_api_base,
            "STRIPE_JS_URL": self.stripe_js_url,
        }
        # The hosted UI may also be this very app (the stand-in is mounted here): the API
        # tests' PUBLIC_URL is http://testserver, which never leaves the process.
        hosted_ui = self.cognito_hosted_ui_url
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
