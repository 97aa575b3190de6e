"""Create, idempotently, what the stand-ins need: the user pool, its app client, the Stripe
product and $20/unit monthly plan. Returns the settings (as environment variables) that point
the API at them.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import stripe

from api.adapters.cognito import CognitoClient
from api.app.features import throttles
from api.billing.webhooks.service import HANDLED_TYPES
from api.identity.sign_in.app_client import ALLOWED_AUTH_FLOWS, PASSKEY_CLIENT_AUTH_FLOWS

REGION = "us-east-1"
POOL_NAME = "console-dev"
CLIENT_NAME = "console-web"
PASSKEY_CLIENT_NAME = "console-passkeys"
PLAN_ID = "console-unit-monthly"
PLAN_AMOUNT_CENTS = 2000  # SPEC 9: 20 USD per unit
STRIPE_SECRET_KEY = "sk_test_devstack"
STRIPE_PUBLISHABLE_KEY = "pk_test_devstack"
STRIPE_WEBHOOK_SECRET = "whsec_devstack"
AWS_KEY = "testing"
# The console's own emails (api/adapters/mail.py) come from this address.
MAIL_FROM = "Autostep Console <no-reply@console.example>"
# The dev stack's API key ring (api/kernel/secretbox.py): a fixed, public key, for stand-ins only.
DEV_KEY_RING = {
    "API_KEY_ENCRYPTION_KEYS": '{"dev-1": "ZGV2c3RhY2stb25seS1ub3QtYS1zZWNyZXQtMzJieXQ="}',
    "API_KEY_ENCRYPTION_KEY_ID": "dev-1",
}
# Google's hosted domain claim ``hd``, mapped by the pool to this custom attribute: what
# proves a Workspace identity of a verified domain (README "Verified domains").
HOSTED_DOMAIN_SCHEMA = {
    "Name": "hd",
    "AttributeDataType": "String",
    "Mutable": True,
    "StringAttributeConstraints": {"MinLength": "0", "MaxLength": "253"},
}


# README "User pool settings": password sign-in only server-side, no admin scope; the
# attributes the identity providers' mappings write (email, names, custom:hd) must be
# writable by the client the federation uses (Cognito refuses a sign-in that maps an
# attribute its client cannot write). A token of this client can still change none of them
# unchecked: hosted-UI tokens lack the admin scope, and a password user's new email counts
# only once verified (AttributesRequireVerificationBeforeUpdate); the console reads no
# attribute of a password user as proof of anything.
# Not ALLOW_USER_AUTH, though passkey sign-in needs it: Cognito's USER_AUTH signs in with a
# password too whenever the pool allows PASSWORD first, without SigV4 (botocore's model of
# ExplicitAuthFlows), a password flow of the public client's own (docs/contributors/dev-stack.md
# "Passkeys"). Passkey sign-in has an app client of its own, with a secret (_passkey_client).
APP_CLIENT_AUTH_FLOWS = sorted(ALLOWED_AUTH_FLOWS)
MFA_CONFIG = {"MfaConfiguration": "OPTIONAL", "SoftwareTokenMfaConfiguration": {"Enabled": True}}
# Passkeys: a first factor beside passwords (the pool's sign-in policy; Cognito offers them
# through the USER_AUTH flow only), and only passkeys that verify the user (a PIN or a
# biometric): a passkey alone is then something the user has and knows or is (dev-stack.md
# "Passkeys").
FIRST_AUTH_FACTORS = ["PASSWORD", "WEB_AUTHN"]
PASSKEY_USER_VERIFICATION = "required"
APP_CLIENT_WRITE_ATTRIBUTES = ["given_name", "family_name", "email", "custom:hd"]


@dataclass(frozen=True)
class StandIns:
    """Where the stand-ins listen and the ids bootstrap found or created."""

    moto_url: str
    localstripe_url: str
    user_pool_id: str
    client_id: str
    dns_port: int
    smtp_port: int
    mailbox_path: str
    passkey_client_id: str = ""
    passkey_client_secret: str = ""


def passkey_relying_party_id(public_url: str) -> str:
    """The WebAuthn relying party ID of a console served at ``public_url``: its host name, and
    ``localhost`` for an IP address (the dev stack's 127.0.0.1), which browsers refuse as an
    RP ID, while they count ``http://localhost`` as a secure context where WebAuthn works
    (docs/contributors/dev-stack.md "Passkeys")."""
    host = urlsplit(public_url).hostname or "localhost"
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host
    return "localhost"


def _mfa_config(public_url: str) -> dict[str, Any]:
    """SetUserPoolMfaConfig's settings: authenticator apps, and the pool's passkey relying
    party (Cognito's ``WebAuthnConfiguration``)."""
    return MFA_CONFIG | {
        "WebAuthnConfiguration": {
            "RelyingPartyId": passkey_relying_party_id(public_url),
            "UserVerification": PASSKEY_USER_VERIFICATION,
        }
    }


def _pool_settings() -> dict[str, Any]:
    return {
        "PoolName": POOL_NAME,
        # SPEC 9: 12 characters minimum; SPEC 5: a digit and a special character.
        "Policies": {
            "PasswordPolicy": {
                "MinimumLength": 12,
                "RequireNumbers": True,
                "RequireSymbols": True,
                "RequireUppercase": False,
                "RequireLowercase": False,
            },
            "SignInPolicy": {"AllowedFirstAuthFactors": FIRST_AUTH_FACTORS},
        },
        "AutoVerifiedAttributes": ["email"],
        "Schema": [HOSTED_DOMAIN_SCHEMA],
        "AccountRecoverySetting": {
            "RecoveryMechanisms": [{"Priority": 1, "Name": "verified_email"}]
        },
        # README "Email ownership": users are created only through the API (registration and
        # invitations use the admin API), and a changed email takes effect only once verified,
        # so nobody can give themselves an address they do not own.
        "AdminCreateUserConfig": {"AllowAdminCreateUserOnly": True},
        "UserAttributeUpdateSettings": {"AttributesRequireVerificationBeforeUpdate": ["email"]},
    }


def _app_client(pool_id: str, public_url: str) -> dict[str, Any]:
    """The app client's settings (README "User pool settings"). Its hosted UI offers the
    identity providers only: ``COGNITO`` (the hosted UI's own password page) would be a
    password sign-in outside the API's limits and checks."""
    return {
        "UserPoolId": pool_id,
        "ClientName": CLIENT_NAME,
        "ExplicitAuthFlows": APP_CLIENT_AUTH_FLOWS,
        "ReadAttributes": ["email", "email_verified", "given_name", "family_name"],
        "WriteAttributes": APP_CLIENT_WRITE_ATTRIBUTES,
        "AllowedOAuthFlows": ["code"],
        "AllowedOAuthScopes": ["openid", "email", "profile"],
        # The sign-in's landing, and the SAML connection's test sign-in (README "SAML single
        # sign-on"), which comes back to a page of its own.
        "CallbackURLs": [
            public_url.rstrip("/") + "/oauth/sso",
            public_url.rstrip("/") + "/oauth/saml-test",
        ],
        "SupportedIdentityProviders": ["Google", "Github"],
    }


def _passkey_client(pool_id: str) -> dict[str, Any]:
    """The passkey sign-in's app client (README "User pool settings"; docs/users/passkeys.md):
    confidential (a secret, so every request needs the ``SECRET_HASH`` only the API can
    compute), ``USER_AUTH`` and refresh only, no hosted UI and no OAuth. Cognito offers passkey
    sign-in through ``USER_AUTH`` only, which on the public client would be an unsigned
    password sign-in too (api/identity/sign_in/app_client.py)."""
    return {
        "UserPoolId": pool_id,
        "ClientName": PASSKEY_CLIENT_NAME,
        "ExplicitAuthFlows": sorted(PASSKEY_CLIENT_AUTH_FLOWS),
        "ReadAttributes": ["email", "email_verified", "given_name", "family_name"],
        "WriteAttributes": APP_CLIENT_WRITE_ATTRIBUTES,
        "SupportedIdentityProviders": [],
    }


async def ensure_passkey_client(moto_url: str, pool_id: str) -> tuple[str, str]:
    """Find or create the pool's passkey app client; returns (client id, client secret)."""
    admin = CognitoClient(
        base_url=moto_url,
        region=REGION,
        user_pool_id=pool_id,
        client_id="",
        access_key_id=AWS_KEY,
        secret_access_key=AWS_KEY,
    )
    try:
        clients = (
            await admin.call(
                "ListUserPoolClients", {"UserPoolId": pool_id, "MaxResults": 60}, signed=True
            )
        )["UserPoolClients"]
        client_id = next(
            (c["ClientId"] for c in clients if c["ClientName"] == PASSKEY_CLIENT_NAME), None
        )
        if client_id is None:
            created = await admin.call(
                "CreateUserPoolClient",
                {"GenerateSecret": True, **_passkey_client(pool_id)},
                signed=True,
            )
            client_id = created["UserPoolClient"]["ClientId"]
        described = await admin.call(
            "DescribeUserPoolClient", {"UserPoolId": pool_id, "ClientId": client_id}, signed=True
        )
    finally:
        await admin.aclose()
    return str(client_id), str(described["UserPoolClient"]["ClientSecret"])


async def ensure_user_pool(moto_url: str, public_url: str) -> tuple[str, str]:
    """Find or create the pool and its public app client; returns (pool id, client id)."""
    admin = CognitoClient(
        base_url=moto_url,
        region=REGION,
        user_pool_id="",
        client_id="",
        access_key_id=AWS_KEY,
        secret_access_key=AWS_KEY,
    )
    try:
        pools = (await admin.call("ListUserPools", {"MaxResults": 60}, signed=True))["UserPools"]
        pool_id = next((p["Id"] for p in pools if p["Name"] == POOL_NAME), None)
        if pool_id is None:
            created = await admin.call("CreateUserPool", _pool_settings(), signed=True)
            pool_id = created["UserPool"]["Id"]
        described = await admin.call("DescribeUserPool", {"UserPoolId": pool_id}, signed=True)
        names = {a["Name"] for a in described["UserPool"].get("SchemaAttributes", [])}
        if "custom:hd" not in names:  # a pool older than custom:hd (docker compose keeps moto)
            await admin.call(
                "AddCustomAttributes",
                {"UserPoolId": pool_id, "CustomAttributes": [HOSTED_DOMAIN_SCHEMA]},
                signed=True,
            )
        policies = described["UserPool"].get("Policies") or {}
        factors = (policies.get("SignInPolicy") or {}).get("AllowedFirstAuthFactors") or []
        if "WEB_AUTHN" not in factors:  # a pool older than passkeys (docker compose keeps moto)
            # UpdateUserPool resets what it is not sent: all of the pool's settings go.
            settings = {k: v for k, v in _pool_settings().items() if k != "Schema"}
            await admin.call("UpdateUserPool", {"UserPoolId": pool_id, **settings}, signed=True)
        # README "User pool settings": users may add an authenticator app (two-step sign-in);
        # the console, not the pool, decides who must. And the pool's passkey relying party.
        await admin.call(
            "SetUserPoolMfaConfig", _mfa_config(public_url) | {"UserPoolId": pool_id}, signed=True
        )
        clients = (
            await admin.call(
                "ListUserPoolClients", {"UserPoolId": pool_id, "MaxResults": 60}, signed=True
            )
        )["UserPoolClients"]
        client_id = next((c["ClientId"] for c in clients if c["ClientName"] == CLIENT_NAME), None)
        if client_id is None:
            created = await admin.call(
                "CreateUserPoolClient",
                {"GenerateSecret": False, **_app_client(pool_id, public_url)},
                signed=True,
            )
            client_id = created["UserPoolClient"]["ClientId"]
        else:  # a client made before password sign-in moved server-side (docker compose)
            await admin.call(
                "UpdateUserPoolClient",
                {"ClientId": client_id, **_app_client(pool_id, public_url)},
                signed=True,
            )
    finally:
        await admin.aclose()
    return str(pool_id), str(client_id)


async def ensure_stripe_plan(localstripe_url: str) -> None:
    """Find or create the product and the $20/unit monthly plan (the legacy Plans API, which
    localstripe speaks). The console only reads the plan, so creating it is the stand-in's
    own call through the stripe SDK, not an operation of the production adapter.

    Raises:
        stripe.StripeError: localstripe refused or could not be reached.
    """
    http = stripe.HTTPXClient(timeout=10)
    client = stripe.StripeClient(
        STRIPE_SECRET_KEY,
        base_addresses={"api": localstripe_url.rstrip("/")},
        http_client=http,
        max_network_retries=1,
    )
    try:
        try:
            await client.v1.plans.retrieve_async(PLAN_ID)
        except stripe.StripeError as exc:
            if exc.http_status != 404:
                raise
            product = await client.v1.products.create_async(
                params={"name": "Console plan", "type": "service"},
                options={"idempotency_key": f"product:{PLAN_ID}"},
            )
            await client.v1.plans.create_async(
                params={
                    "id": PLAN_ID,
                    "product": str(product.id),
                    "amount": PLAN_AMOUNT_CENTS,
                    "currency": "usd",
                    "interval": "month",
                },
                options={"idempotency_key": f"plan:{PLAN_ID}"},
            )
    finally:
        await http.close_async()  # type: ignore[no-untyped-call]


WEBHOOK_ID = "console"
WEBHOOK_EVENTS = sorted(HANDLED_TYPES)


def register_stripe_webhook(localstripe_url: str, public_url: str) -> None:
    """Point localstripe's webhooks at this API's ``/webhooks/stripe``, signed with
    ``STRIPE_WEBHOOK_SECRET``. localstripe keeps registrations in memory only: call at every
    start (ARCHITECTURE verified recipe)."""
    response = httpx.post(
        f"{localstripe_url}/_config/webhooks/{WEBHOOK_ID}",
        json={
            "url": public_url.rstrip("/") + "/webhooks/stripe",
            "secret": STRIPE_WEBHOOK_SECRET,
            "events": WEBHOOK_EVENTS,
        },
        timeout=10,
    )
    response.raise_for_status()


async def bootstrap(
    moto_url: str,
    localstripe_url: str,
    public_url: str,
    dns_port: int,
    smtp_port: int,
    mailbox_path: str,
) -> StandIns:
    """Everything above; safe to run at every start."""
    pool_id, client_id = await ensure_user_pool(moto_url, public_url)
    passkey_client_id, passkey_client_secret = await ensure_passkey_client(moto_url, pool_id)
    await ensure_stripe_plan(localstripe_url)
    return StandIns(
        moto_url=moto_url,
        localstripe_url=localstripe_url,
        user_pool_id=pool_id,
        client_id=client_id,
        dns_port=dns_port,
        smtp_port=smtp_port,
        mailbox_path=mailbox_path,
        passkey_client_id=passkey_client_id,
        passkey_client_secret=passkey_client_secret,
    )


LIFTED_PER_ADDRESS = 10_000
"""Every per-client-address limit of the dev stack, per window (production's are 10 to 6000)."""


def lifted_per_address() -> dict[str, str]:
    """The setting of every per-address limit a feature declares (api/app/features.py), at
    :data:`LIFTED_PER_ADDRESS`: every browser and test of the dev stack comes from 127.0.0.1,
    so a limit per address would soon count all of them as one abuser. Derived from the
    declarations, a new throttle is lifted too. The limits per account, per email (the backoff
    of failed sign-ins per email and address, the per-email ceiling) and per recipient (the
    password-reset and invitation emails) stay as in production: here every address is the
    same, so they act per account, per email or per recipient."""
    return {
        throttle.per_address: str(LIFTED_PER_ADDRESS)
        for throttle in throttles()
        if throttle.per_address is not None
    }


def api_environment(
    stand_ins: StandIns, *, database_url: str, public_url: str, web_dist: str = ""
) -> dict[str, str]:
    """Environment variables that configure the API for the stand-ins (see api/kernel/config.py)."""
    return {
        "ENVIRONMENT": "development",
        "DEV_STAND_INS": "true",
        "DATABASE_URL": database_url,
        "PUBLIC_URL": public_url,
        "WEB_DIST": web_dist,
        "LOG_FORMAT": "console",
        "AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": AWS_KEY,
        "AWS_SECRET_ACCESS_KEY": AWS_KEY,
        "COGNITO_ENDPOINT": stand_ins.moto_url,
        "COGNITO_USER_POOL_ID": stand_ins.user_pool_id,
        "COGNITO_CLIENT_ID": stand_ins.client_id,
        "COGNITO_PASSKEY_CLIENT_ID": stand_ins.passkey_client_id,
        "COGNITO_PASSKEY_CLIENT_SECRET": stand_ins.passkey_client_secret,
        "COGNITO_HOSTED_UI_URL": public_url,
        "STRIPE_API_BASE": stand_ins.localstripe_url,
        "STRIPE_SECRET_KEY": STRIPE_SECRET_KEY,
        "STRIPE_PUBLISHABLE_KEY": STRIPE_PUBLISHABLE_KEY,
        "STRIPE_JS_URL": stand_ins.localstripe_url + "/js.stripe.com/v3/",
        "STRIPE_WEBHOOK_SECRET": STRIPE_WEBHOOK_SECRET,
        "STRIPE_PLAN_ID": PLAN_ID,
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(stand_ins.smtp_port),
        "SMTP_SECURITY": "none",
        "MAIL_FROM": MAIL_FROM,
        **DEV_KEY_RING,
        "DEV_MAILBOX_PATH": stand_ins.mailbox_path,
        "DNS_NAMESERVERS": '["127.0.0.1"]',
        "DNS_PORT": str(stand_ins.dns_port),
        # Every browser and test of the dev stack comes from 127.0.0.1: every per-address limit
        # is out of their way (LIFTED_PER_ADDRESS).
        **lifted_per_address(),
    }
