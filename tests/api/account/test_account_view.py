"""The fast path of GET /web/account (one statement, PostgreSQL builds the JSON) says exactly
what the pydantic composition of the domains says (README "Code layout"), for every shape
of account."""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI

from api.account.schemas import AccountResponse
from api.account.service import account_summary, account_view, create_account
from api.models import AuthType, DomainState, Platform, Role, SsoDomain, Usage, User
from api.models.account import PAST_DUE_GRACE
from api.principal.errors import AccountRequired
from api.principal.tokens import AccessClaims


@dataclass
class Seeded:
    account_id: uuid.UUID
    identity_id: str


Seed = Callable[..., Awaitable[Seeded]]


@pytest.fixture
def seed(app: FastAPI) -> Seed:
    """An account anchored at ``anchor`` with ``users`` (first, last, auth type), rollups
    ``usage`` ({cycle index: {platform: (runs, credits)}}), SSO ``domains`` (name, state) and
    ``fields`` set on the account."""

    async def make(
        anchor: datetime,
        users: list[tuple[str, str, AuthType]],
        usage: dict[int, dict[Platform, tuple[int, int]]] | None = None,
        domains: Sequence[tuple[str, DomainState]] = (),
        **fields: Any,
    ) -> Seeded:
        async with app.state.resources.sessionmaker() as db, db.begin():
            account = await create_account(
                db=db, settings=app.state.settings, name="Shape Co", billing_cycle_anchor=anchor
            )
            for name, value in fields.items():
                setattr(account, name, value)
            identities = []
            for first, last, auth_type in users:
                identity_id = f"view-{uuid.uuid4().hex}"
                identities.append(identity_id)
                db.add(
                    User(
                        account_id=account.id,
                        identity_id=identity_id,
                        identity_sub=identity_id,
                        first_name=first,
                        last_name=last,
                        email=f"{identity_id}@view-shapes.dev",
                        auth_type=auth_type,
                        role=Role.OWNER,
                    )
                )
            await db.flush()
            for name, state in domains:
                db.add(
                    SsoDomain(
                        account_id=account.id, domain=name, token=uuid.uuid4().hex, state=state
                    )
                )
            for index, platforms in (usage or {}).items():
                for platform, (runs, credits) in platforms.items():
                    db.add(
                        Usage(
                            account_id=account.id,
                            cycle_start=anchor + relativedelta(months=index),
                            platform=platform,
                            runs=runs,
                            credits=credits,
                        )
                    )
        # The viewer is a user the account's sign-in policy lets in: a Google user where
        # Google sign-in is required.
        allowed = [
            identity
            for identity, (_, _, auth_type) in zip(identities, users, strict=True)
            if auth_type is AuthType.GOOGLE_SSO or not fields.get("require_google_sso")
        ]
        return Seeded(account.id, allowed[0])

    return make


def _claims(identity_id: str) -> AccessClaims:
    """A verified token's claims for the seeded user ``identity_id`` (its sub too)."""
    now = int(time.time())
    return AccessClaims(sub=identity_id, username=identity_id, issued_at=now, expires_at=now + 60)


async def _both(app: FastAPI, seeded: Seeded, now: datetime) -> tuple[Any, Any]:
    """(fast path parsed, pydantic model's JSON) for the same account and time."""
    fast = orjson.loads(
        await account_view(
            reads=app.state.resources.read_engine, claims=_claims(seeded.identity_id), now=now
        )
    )
    async with app.state.resources.sessionmaker() as db:
        model = AccountResponse(
            account=await account_summary(db=db, account_id=seeded.account_id, now=now)
        )
    return fast, model.model_dump(mode="json", by_alias=True)


ONE_USER = [("Ada", "Lovelace", AuthType.EMAIL)]
NOW = datetime(2026, 11, 21, 10, 15, 30, 250_000, tzinfo=UTC)


class TestSameAsTheModel:
    async def test_new_account_no_card_no_sso_empty_usage(self, app: FastAPI, seed: Seed) -> None:
        seeded = await seed(NOW - relativedelta(days=3), ONE_USER)
        fast, model = await _both(app, seeded, NOW)
        assert fast == model
        assert model["account"]["billing"] is None
        assert model["account"]["sso"] == {"isGoogleSSO": False, "isSamlSSO": False, "domains": []}
        assert [e["requests"] for e in model["account"]["usage"]] == [0]

    async def test_full_twelve_cycles_card_sso_three_users(self, app: FastAPI, seed: Seed) -> None:
        tag = uuid.uuid4().hex[:12]
        anchor = datetime(2025, 9, 4, 7, 30, 12, 345_678, tzinfo=UTC)
        usage = {
            i: {
                Platform.WEB: (i + 1, 10 * i + 1),
                Platform.NATIVE_MOBILE: (2, 7),
                Platform.API: (3, 1_000_000 + i),
            }
            for i in range(15)
        }
        seeded = await seed(
            anchor,
            [
                ("Zoë", "Ångström", AuthType.EMAIL),
                ("Grace", "Hopper", AuthType.EMAIL),
                ("Kat", "Johnson", AuthType.GOOGLE_SSO),
            ],
            usage,
            [
                (f"{tag}-b.view-shapes.dev", DomainState.VERIFIED),
                (f"{tag}-a.view-shapes.dev", DomainState.VERIFIED),
                (f"{tag}-pending.view-shapes.dev", DomainState.PENDING),
                (f"{tag}-lost.view-shapes.dev", DomainState.LOST),
            ],
            require_google_sso=True,
            subscription_units=7,
            scheduled_units=2,
            scheduled_change_at=datetime(2026, 12, 4, 7, 30, 12, 345_678, tzinfo=UTC),
            past_due_amount=14_000,
            past_due_currency="eur",
            card_brand="MasterCard",
            card_last4="4444",
            card_exp_month=12,
            card_exp_year=2031,
            payment_failed_at=datetime(2026, 10, 2, 3, 4, 5, 60, tzinfo=UTC),
        )
        fast, model = await _both(app, seeded, NOW)
        assert fast == model
        account = model["account"]
        assert len(account["usage"]) == 12
        # Cycles 3 to 14 of the anchor's (NOW is in cycle 14).
        assert account["usage"][0]["requests"] == (10 * 3 + 1) + 7 + 1_000_003
        assert {u["lastName"] for u in account["users"]} == {"Hopper", "Johnson", "Ångström"}
        assert account["billing"]["brand"] == "MasterCard"
        assert account["subscription"]["paymentFailedAt"] == "2026-10-02T03:04:05.000060Z"
        assert account["subscription"]["pastDue"] == {"amountDue": 14_000, "currency": "eur"}
        assert account["sso"]["domains"] == [
            f"{tag}-a.view-shapes.dev",
            f"{tag}-b.view-shapes.dev",
        ]

    async def test_card_without_brand_or_expiry_and_whole_second_failure(
        self, app: FastAPI, seed: Seed
    ) -> None:
        seeded = await seed(
            NOW - relativedelta(months=2),
            [("Solo", "User", AuthType.GITHUB)],
            {1: {Platform.API: (1, 5)}},
            card_last4="0002",
            payment_failed_at=datetime(2026, 11, 1, 0, 0, 0, tzinfo=UTC),
            scheduled_units=0,
            scheduled_change_at=datetime(2026, 12, 1, tzinfo=UTC),
            past_due_amount=2_000,
        )
        fast, model = await _both(app, seeded, NOW)
        assert fast == model
        assert model["account"]["billing"] == {
            "brand": "Visa",
            "last4": "0002",
            "expMonth": 0,
            "expYear": 0,
        }
        subscription = model["account"]["subscription"]
        assert subscription["paymentFailedAt"] == "2026-11-01T00:00:00Z"
        assert subscription["scheduledUnits"] == 0
        assert subscription["scheduledChangeAt"] == "2026-12-01T00:00:00Z"
        assert subscription["pastDue"] == {"amountDue": 2_000, "currency": "usd"}

    @pytest.mark.parametrize(
        ("since", "units_in_force"),
        [
            (NOW - PAST_DUE_GRACE, 4),  # the grace's last instant: the units still count
            (NOW - PAST_DUE_GRACE - timedelta(microseconds=1), 0),  # past it: none
        ],
    )
    async def test_a_past_due_plan_at_the_edge_of_its_grace(
        self, app: FastAPI, seed: Seed, since: datetime, units_in_force: int
    ) -> None:
        seeded = await seed(
            NOW - relativedelta(months=2),
            ONE_USER,
            subscription_units=4,
            payment_failed_at=since,
            past_due_since=since,
            past_due_invoice_id="in_grace",
            past_due_amount=8_000,
        )
        fast, model = await _both(app, seeded, NOW)
        assert fast == model
        subscription = model["account"]["subscription"]
        assert (subscription["units"], subscription["unitsInForce"]) == (4, units_in_force)
        assert subscription["graceEndsAt"] == (
            (since + PAST_DUE_GRACE).isoformat().replace("+00:00", "Z")
        )

    @pytest.mark.parametrize(
        "now",
        [
            datetime(2025, 2, 28, 11, 59, 59, tzinfo=UTC),  # before Feb's (clamped) start
            datetime(2025, 2, 28, 12, 0, 0, 123_000, tzinfo=UTC),  # exactly at it
            datetime(2025, 3, 31, 11, 0, 0, tzinfo=UTC),
            datetime(2026, 2, 28, 12, 0, 0, 1, tzinfo=UTC),
            datetime(2027, 6, 1, tzinfo=UTC),  # more than 12 cycles on
            datetime(2024, 12, 1, tzinfo=UTC),  # before the anchor: its first cycle
        ],
    )
    async def test_month_end_anchor_cycles(self, app: FastAPI, seed: Seed, now: datetime) -> None:
        # Jan 31 at noon, with whole milliseconds: days that months lack clamp to the month's
        # end, and start times convert to milliseconds exactly.
        anchor = datetime(2025, 1, 31, 12, 0, 0, 123_000, tzinfo=UTC)
        seeded = await seed(
            anchor, ONE_USER, {1: {Platform.WEB: (1, 2)}, 13: {Platform.WEB: (3, 4)}}
        )
        fast, model = await _both(app, seeded, now)
        assert fast == model

    async def test_identity_without_a_user_is_account_required(self, app: FastAPI) -> None:
        with pytest.raises(AccountRequired):
            await account_view(
                reads=app.state.resources.read_engine,
                claims=_claims(f"nobody-{uuid.uuid4().hex}"),
                now=NOW,
            )

    async def test_only_the_callers_account(self, app: FastAPI, seed: Seed) -> None:
        mine = await seed(NOW - relativedelta(months=1), ONE_USER, {0: {Platform.WEB: (1, 1)}})
        theirs = await seed(NOW - relativedelta(months=1), ONE_USER, {0: {Platform.WEB: (9, 9)}})
        fast, model = await _both(app, mine, NOW)
        assert fast == model
        assert fast["account"]["id"] == str(mine.account_id) != str(theirs.account_id)
        assert fast["account"]["usage"][0]["web"] == {"runs": 1, "credits": 1}
