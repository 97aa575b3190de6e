"""The demo account of the dev stack, created once, and its users in the stand-in Cognito.

Ada (Owner) and Grace (Admin) sign in with a password; Katherine (Member) signs in with
"Sign in with Google" as ``kat@acme-robotics.dev`` on the hosted-UI stand-in: one user of each
role (SPEC 6).

moto keeps nothing between runs, so at every start each user of the dev database is created
again in the pool under the same username (our ``identity_id``). Password users get
``DEMO_PASSWORD``; federated users are re-created by the hosted-UI stand-in at their next
sign-in.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from dateutil.relativedelta import relativedelta
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from api.account.service import create_account
from api.adapters.cognito import CognitoClient, ResourceNotFoundError, UserNotFoundError
from api.identity.sso.saml import identity_provider_of
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker
from api.models import Account, ApiKey, AuthType, Platform, Role, SamlConnection, User
from api.usage.cycles import recent_cycle_starts, reset_date
from api.usage.repository import NewRecord, insert_records
from devstack.hosted_signin import federated_username

DEMO_ACCOUNT = "Acme Robotics"
DEMO_EMAIL = "ada@acme-robotics.dev"
DEMO_PASSWORD = "Console-demo-2026!"
DEMO_USERS = [
    (DEMO_EMAIL, "Ada", "Lovelace", Role.OWNER),
    ("grace@acme-robotics.dev", "Grace", "Hopper", Role.ADMIN),
]
# Signs in with "Sign in with Google" on the hosted-UI stand-in (any first and last name).
DEMO_GOOGLE_EMAIL = "kat@acme-robotics.dev"
SEEDED_MONTHS = 6
# A second account that has never metered anything: the 'No usage detected' warning (SPEC 2
# "Account Information").
EMPTY_ACCOUNT = "Globex Labs"
EMPTY_EMAIL = "hank@globex-labs.dev"


async def add_account(
    db: AsyncSession,
    settings: Settings,
    name: str,
    users: list[tuple[str, str, str, Role]],
    anchor: datetime,
) -> Account:
    """Add an account on the free plan (0 units) with password users given as
    (email, first name, last name, role); flushes and returns the account."""
    account = await create_account(db=db, settings=settings, name=name, billing_cycle_anchor=anchor)
    for email, first, last, role in users:
        db.add(
            User(
                account_id=account.id,
                identity_id=email,
                first_name=first,
                last_name=last,
                email=email,
                auth_type=AuthType.EMAIL,
                role=role,
            )
        )
    await db.flush()
    return account


async def _seed_database(db: AsyncSession, settings: Settings) -> bool:
    """Create the demo account, users and usage unless the demo user exists. True if created."""
    if await db.scalar(select(User.id).where(User.email == DEMO_EMAIL)) is not None:
        return False
    now = datetime.now(UTC)
    anchor = (now - relativedelta(months=SEEDED_MONTHS)).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    account = await add_account(db, settings, DEMO_ACCOUNT, DEMO_USERS, anchor)
    db.add(
        User(
            account_id=account.id,
            identity_id=federated_username("google", DEMO_GOOGLE_EMAIL),
            first_name="Katherine",
            last_name="Johnson",
            email=DEMO_GOOGLE_EMAIL,
            auth_type=AuthType.GOOGLE_SSO,
            role=Role.MEMBER,
        )
    )
    # Through the intake's own statement, so the rollups (per cycle and day, per key and per
    # label) agree; most records carry labels, so Account Information has a breakdown to show.
    rng = random.Random(7)  # the same demo numbers every time
    projects = ("checkout-suite", "checkout-suite", "search-suite", "login-suite", "admin-suite")
    share = {Platform.WEB: 0.6, Platform.NATIVE_MOBILE: 0.25, Platform.API: 0.15}
    starts = recent_cycle_starts(anchor, now, SEEDED_MONTHS + 1)
    records: list[NewRecord] = []
    for i, start in enumerate(starts):
        monthly = int(40 + 12 * i + rng.randint(0, 20))
        end = reset_date(start)
        if start == starts[-1]:
            monthly //= 3  # the current cycle is partly used
            end = now
        span_s = (end - start).total_seconds()
        for platform, fraction in share.items():
            left = round(monthly * fraction)
            while left > 0:
                credits = min(left, rng.randint(1, 4))
                left -= credits
                at = start + timedelta(seconds=rng.uniform(0, span_s))
                key = f"seed-{start:%Y%m%d}-{platform.value}-{left}"
                labels = (
                    {
                        "project": rng.choice(projects),
                        "ci": rng.choice(("github-actions", "nightly")),
                    }
                    if rng.random() < 0.85
                    else None
                )
                records.append(NewRecord(key, platform, 1, credits, at, start, labels))
    key_id = await db.scalar(select(ApiKey.id).where(ApiKey.account_id == account.id))
    await insert_records(db, account.id, sorted(records, key=lambda r: r.idempotency_key), key_id)
    await db.flush()
    return True


async def _seed_empty_account(db: AsyncSession, settings: Settings) -> None:
    """Create the account without usage and its one user (password ``DEMO_PASSWORD``)."""
    if await db.scalar(select(User.id).where(User.email == EMPTY_EMAIL)) is not None:
        return
    await add_account(
        db,
        settings,
        EMPTY_ACCOUNT,
        [(EMPTY_EMAIL, "Hank", "Scorpio", Role.OWNER)],
        datetime.now(UTC),
    )


async def _ensure_cognito_users(db: AsyncSession, cognito: CognitoClient) -> int:
    """Create every password user of the database in the pool if missing; returns how many."""
    created = 0
    users = await db.scalars(select(User).where(User.auth_type == AuthType.EMAIL))
    for user in users:
        if user.identity_id is None:
            continue
        try:
            await cognito.admin_get_user(user.identity_id)
            continue
        except UserNotFoundError:
            pass
        await cognito.admin_create_user(
            user.identity_id,
            {
                "email": user.email,
                "email_verified": "true",
                "given_name": user.first_name,
                "family_name": user.last_name,
            },
            suppress_message=True,
        )
        await cognito.admin_set_user_password(user.identity_id, DEMO_PASSWORD, permanent=True)
        created += 1
    return created


async def _ensure_saml_providers(db: AsyncSession, cognito: CognitoClient) -> int:
    """Create every SAML connection of the database in the pool if missing (moto keeps
    nothing between runs), listed in the app client; returns how many."""
    missing = []
    for row in await db.scalars(select(SamlConnection)):
        try:
            await cognito.describe_identity_provider(row.provider_name)
        except ResourceNotFoundError:
            await cognito.create_identity_provider(identity_provider_of(row))
            missing.append(row.provider_name)
    if missing:
        client = await cognito.describe_app_client()
        listed = client.get("SupportedIdentityProviders") or []
        client["SupportedIdentityProviders"] = [*listed, *missing]
        await cognito.update_app_client(client)
    return len(missing)


async def seed(settings: Settings) -> tuple[bool, int]:
    """Seed the database and the pool. Returns (demo account created, pool users created)."""
    engine = create_engine(settings.database_url, 2)
    cognito = CognitoClient.from_settings(settings)
    try:
        async with create_sessionmaker(engine)() as db, db.begin():
            created = await _seed_database(db, settings)
            await _seed_empty_account(db, settings)
            provisioned = await _ensure_cognito_users(db, cognito)
            await _ensure_saml_providers(db, cognito)
    finally:
        await cognito.aclose()
        await engine.dispose()
    return created, provisioned
