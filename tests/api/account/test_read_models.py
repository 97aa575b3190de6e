"""The read models on generated accounts (docs/contributors/code-layout.md "Read models").

Hypothesis draws account states (every SSO state, a SAML connection with and without its
requirement, two-step sign-in required or not and set up or not, spend limits, billing on the
free plan, paid, past due within and beyond its grace and cancelled, several API keys, users
in every status and sign-in type, months of usage); each is stored, and what
``GET /web/account``'s view answers for it must (1) be valid against ``AccountResponse``, the
schema openapi.json publishes, and write it as pydantic would (the same JSON once validated and
written again: no extra key, times and ids in the wire's form), and (2) say the key facts this
test works out on its own from the state it drew. ``PUT /web/account`` answers through the
same view, and ``GET /web/session``'s body is held to ``SessionResponse`` the same way.
"""

from __future__ import annotations

import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from dateutil.relativedelta import relativedelta
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, update

from api.account.schemas import AccountResponse
from api.account.service import account_view, create_account, rename_account
from api.account.view import _BODIES
from api.audit import Actor, AuditTrail
from api.identity.sign_in.schemas import SessionResponse
from api.identity.sign_in.service import session_view
from api.keys.service import key_ring, new_key_row
from api.models import (
    ApiKey,
    AuthType,
    DomainState,
    Platform,
    Role,
    SamlConnection,
    SsoDomain,
    Usage,
    User,
)
from api.models.account import PAST_DUE_GRACE
from api.principal.errors import AccountRequired
from api.principal.principal import Caller
from api.principal.tokens import AccessClaims
from api.usage.cycles import USAGE_CYCLES_SHOWN, epoch_ms, recent_cycle_starts

NOW = datetime(2026, 11, 21, 10, 15, 30, 250_000, tzinfo=UTC)
DAY = timedelta(days=1)

# Times with and without microseconds: the wire writes ``.ffffff`` only when they are not zero.
_instants = st.builds(
    lambda days, micros: (NOW - days * DAY).replace(microsecond=micros),
    st.integers(min_value=-60, max_value=400),
    st.sampled_from([0, 60, 250_000, 999_999]),
)
_optional_instant = st.none() | _instants
_names = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=12
).filter(lambda s: s.strip() == s and s != "")


@dataclass
class Person:
    first: str
    last: str
    auth_type: AuthType
    role: Role
    status: str  # what the test expects: Active, Pending or Expired
    two_step_on: bool
    viewer: bool = False


@dataclass
class Key:
    age_days: int
    expires_in_days: int | None  # None: never; negative: expired


@dataclass
class State:
    anchor: datetime
    sso: str  # none | google | saml
    saml_connected: bool
    two_step_required: bool
    billing: str  # free | paid | past_due | past_grace | cancelled
    card: tuple[str | None, str, int | None, int | None] | None
    spend_limits: tuple[bool, list[int], int | None]
    keys: list[Key]
    people: list[Person]
    domains: list[tuple[str, DomainState]]
    usage: dict[int, dict[Platform, tuple[int, int]]] = field(default_factory=dict)


_anchors = st.one_of(
    _instants,
    # Month ends (the 29th to 31st clamp in shorter months), up to two years back.
    st.builds(
        lambda months, day: (
            datetime(2024, 12, day, 12, 0, 0, 123_000, tzinfo=UTC) + relativedelta(months=months)
        ),
        st.integers(min_value=0, max_value=23),
        st.integers(min_value=28, max_value=31),
    ),
)


@st.composite
def _person(draw: st.DrawFn) -> Person:
    auth_type = draw(st.sampled_from(list(AuthType)))
    return Person(
        first=draw(_names),
        last=draw(_names),
        auth_type=auth_type,
        role=draw(st.sampled_from(list(Role))),
        status=draw(st.sampled_from(["Active", "Pending", "Expired"])),
        two_step_on=auth_type is AuthType.EMAIL and draw(st.booleans()),
    )


@st.composite
def states(draw: st.DrawFn) -> State:
    sso = draw(st.sampled_from(["none", "google", "saml"]))
    required = {"google": AuthType.GOOGLE_SSO, "saml": AuthType.SAML_SSO}.get(sso)
    two_step_required = draw(st.booleans())
    # The viewer is a user the sign-in policy lets in: of the required sign-in type, and with
    # two-step sign-in on where it is required of a password user.
    viewer_type = required or draw(st.sampled_from(list(AuthType)))
    viewer = Person(
        first=draw(_names),
        last=draw(_names),
        auth_type=viewer_type,
        role=draw(st.sampled_from(list(Role))),
        status="Active",
        two_step_on=viewer_type is AuthType.EMAIL and (two_step_required or draw(st.booleans())),
        viewer=True,
    )
    others = draw(st.lists(_person(), max_size=4))
    card = draw(
        st.none()
        | st.tuples(
            st.none() | st.sampled_from(["MasterCard", "Amex"]),
            st.from_regex(r"\A[0-9]{4}\Z"),
            st.none() | st.integers(1, 12),
            st.none() | st.integers(2026, 2040),
        )
    )
    usage = draw(
        st.dictionaries(
            st.integers(min_value=0, max_value=30),
            st.dictionaries(
                st.sampled_from(list(Platform)),
                st.tuples(st.integers(0, 10**6), st.integers(0, 10**12)),
                min_size=1,
            ),
            max_size=8,
        )
    )
    return State(
        anchor=draw(_anchors),
        sso=sso,
        saml_connected=sso == "saml" or draw(st.booleans()),
        two_step_required=two_step_required,
        billing=draw(st.sampled_from(["free", "paid", "past_due", "past_grace", "cancelled"])),
        card=card,
        spend_limits=(
            draw(st.booleans()),
            draw(st.sampled_from([[50, 80, 100], [100], []])),
            draw(st.none() | st.integers(0, 10**9)),
        ),
        keys=draw(
            st.lists(
                st.builds(
                    Key,
                    st.integers(1, 400),
                    st.none() | st.integers(-30, 30).filter(lambda d: d != 0),
                ),
                max_size=3,
                unique_by=lambda k: k.age_days,
            )
        ),
        people=[viewer, *others],
        domains=draw(
            st.lists(
                st.tuples(st.from_regex(r"\A[a-z]{1,8}\Z"), st.sampled_from(list(DomainState))),
                max_size=4,
                unique_by=lambda d: d[0],
            )
        ),
        usage=usage,
    )


_BILLING: dict[str, dict[str, Any]] = {
    "free": {},
    "paid": {"subscription_units": 3},
    "past_due": {
        "subscription_units": 4,
        "payment_failed_at": NOW - 3 * DAY,
        "past_due_since": NOW - 3 * DAY,
        "past_due_invoice_id": "in_due",
        "past_due_amount": 8_000,
    },
    "past_grace": {
        "subscription_units": 4,
        "payment_failed_at": NOW - PAST_DUE_GRACE - DAY,
        "past_due_since": NOW - PAST_DUE_GRACE - DAY,
        "past_due_invoice_id": "in_lapsed",
        "past_due_amount": 8_000,
        "past_due_currency": "eur",
    },
    "cancelled": {
        "subscription_units": 2,
        "scheduled_units": 0,
        "scheduled_change_at": NOW + 9 * DAY,
    },
}


@dataclass
class Stored:
    account_id: uuid.UUID
    viewer_sub: str
    tag: str
    last4: str | None  # the current key's
    users: dict[str, Person]  # by email


async def _store(app: FastAPI, state: State) -> Stored:
    settings_ = app.state.settings
    tag = secrets.token_hex(6)
    async with app.state.resources.sessionmaker() as db, db.begin():
        account = await create_account(
            db=db, settings=settings_, name=f"Shape {tag}", billing_cycle_anchor=state.anchor
        )
        account.require_google_sso = state.sso == "google"
        account.require_saml_sso = state.sso == "saml"
        account.two_step_required_at = NOW - 5 * DAY if state.two_step_required else None
        for name, value in _BILLING[state.billing].items():
            setattr(account, name, value)
        if state.card is not None:
            (account.card_brand, account.card_last4, account.card_exp_month,
             account.card_exp_year) = state.card  # fmt: skip
        account.stop_at_allowance, account.usage_alert_thresholds, key_limit = state.spend_limits
        await db.flush()
        first = await db.scalar(select(ApiKey.id).where(ApiKey.account_id == account.id))
        assert first is not None
        ring = key_ring(settings_)
        working: list[tuple[datetime, uuid.UUID, str]] = [(NOW - 500 * DAY, first, "")]
        await db.execute(
            update(ApiKey)
            .where(ApiKey.account_id == account.id)
            .values(created_at=NOW - 500 * DAY, monthly_limit=key_limit)
        )
        for key in state.keys:
            row = new_key_row(ring, account.id)
            row.created_at = NOW - key.age_days * DAY
            if key.expires_in_days is not None:
                # Expired or not as of the database's clock, which the query reads.
                row.expires_at = datetime.now(UTC) + key.expires_in_days * DAY
            db.add(row)
            if key.expires_in_days is None or key.expires_in_days > 0:
                working.append((row.created_at, row.id, row.last4))
        await db.flush()
        newest = max(working, key=lambda k: k[0])
        last4 = newest[2] or await db.scalar(select(ApiKey.last4).where(ApiKey.id == first))
        if state.saml_connected:
            db.add(
                SamlConnection(
                    account_id=account.id,
                    provider_name=f"saml-{tag}",
                    metadata_xml="<EntityDescriptor/>",
                    idp_entity_id=f"https://idp.{tag}.dev",
                    sso_url=f"https://idp.{tag}.dev/sso",
                    certificate_expires_at=NOW + 300 * DAY,
                    metadata_checked_at=NOW,
                )
            )
        users: dict[str, Person] = {}
        viewer_sub = ""
        for index, person in enumerate(state.people):
            sub = f"view-{tag}-{index}"
            email = f"{sub}@read-models.dev"
            users[email] = person
            invited = {
                "Active": (None, NOW - 2 * DAY, None),
                "Pending": (NOW - 2 * DAY, None, NOW + 5 * DAY),
                "Expired": (NOW - 9 * DAY, None, NOW - 2 * DAY),
            }[person.status]
            if person.viewer:
                viewer_sub = sub
            db.add(
                User(
                    account_id=account.id,
                    identity_id=sub,
                    identity_sub=sub,
                    first_name=person.first,
                    last_name=person.last,
                    email=email,
                    auth_type=person.auth_type,
                    role=person.role,
                    invited_at=invited[0],
                    signed_in_at=invited[1],
                    invitation_expires_at=invited[2],
                    two_step_enabled_at=NOW - DAY if person.two_step_on else None,
                )
            )
        for name, domain_state in state.domains:
            db.add(
                SsoDomain(
                    account_id=account.id,
                    domain=f"{name}-{tag}.read-models.dev",
                    token=secrets.token_hex(16),
                    state=domain_state,
                )
            )
        for index, platforms in state.usage.items():
            for platform, (runs, credits) in platforms.items():
                db.add(
                    Usage(
                        account_id=account.id,
                        cycle_start=state.anchor + relativedelta(months=index),
                        platform=platform,
                        runs=runs,
                        credits=credits,
                    )
                )
    return Stored(account.id, viewer_sub, tag, last4, users)


def _claims(sub: str) -> AccessClaims:
    """A verified token's claims for the stored user ``sub``, of a sign-in made just now."""
    now = int(time.time())
    return AccessClaims(sub=sub, username=sub, issued_at=now, expires_at=now + 60)


def _valid(body: bytes) -> dict[str, Any]:
    """``body`` parsed, once it is valid against ``AccountResponse`` and written as pydantic
    writes it."""
    parsed: dict[str, Any] = orjson.loads(body)
    model = AccountResponse.model_validate_json(body, strict=True)
    assert model.model_dump(mode="json", by_alias=True) == parsed
    return parsed


def _wire_time(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat().replace("+00:00", "Z")


def _check_facts(state: State, stored: Stored, account: dict[str, Any]) -> None:
    assert account["id"] == str(stored.account_id)
    assert account["name"] == f"Shape {stored.tag}"
    assert account["apiKey"] == f"ak_…{stored.last4}"

    starts = recent_cycle_starts(state.anchor, NOW, USAGE_CYCLES_SHOWN)
    assert [entry["startMs"] for entry in account["usage"]] == [epoch_ms(s) for s in starts]
    for start, entry in zip(starts, account["usage"], strict=True):
        seeded = {
            platform: counts
            for index, platforms in state.usage.items()
            if state.anchor + relativedelta(months=index) == start
            for platform, counts in platforms.items()
        }
        for platform, key in ((Platform.WEB, "web"), (Platform.NATIVE_MOBILE, "nativeMobile"),
                              (Platform.API, "api")):  # fmt: skip
            runs, credits = seeded.get(platform, (0, 0))
            assert entry[key] == {"runs": runs, "credits": credits}
        assert entry["requests"] == sum(c for _, c in seeded.values())

    plan = account["subscription"]
    billing = _BILLING[state.billing]
    assert plan["units"] == billing.get("subscription_units", 0)
    assert plan["unitsInForce"] == (0 if state.billing == "past_grace" else plan["units"])
    since = billing.get("past_due_since")
    assert plan["graceEndsAt"] == _wire_time(since + PAST_DUE_GRACE if since else None)
    assert plan["pastDue"] == (
        {"amountDue": 8_000, "currency": billing.get("past_due_currency", "usd")}
        if "past_due_amount" in billing
        else None
    )
    assert (plan["scheduledUnits"], plan["scheduledChangeAt"]) == (
        billing.get("scheduled_units"),
        _wire_time(billing.get("scheduled_change_at")),
    )
    assert plan["paymentFailedAt"] == _wire_time(billing.get("payment_failed_at"))

    if state.card is None:
        assert account["billing"] is None
    else:
        brand, last4, month, year = state.card
        assert account["billing"] == {
            "brand": brand or "Visa",
            "last4": last4,
            "expMonth": month or 0,
            "expYear": year or 0,
        }

    shown = account["users"]
    assert sorted(u["email"] for u in shown) == sorted(stored.users)
    for user in shown:
        person = stored.users[user["email"]]
        assert user["status"] == person.status
        assert user["authType"] == person.auth_type.value
        assert user["role"] == person.role.value
        assert user["twoStepSignIn"] == (
            person.two_step_on if person.auth_type is AuthType.EMAIL else None
        )
        assert (user["invitationExpiresAt"] is None) == (person.status == "Active")

    assert account["sso"] == {
        "isGoogleSSO": state.sso == "google",
        "isSamlSSO": state.sso == "saml",
        "domains": sorted(
            f"{name}-{stored.tag}.read-models.dev"
            for name, domain_state in state.domains
            if domain_state is DomainState.VERIFIED
        ),
    }
    assert account["requireTwoStepSignIn"] is state.two_step_required


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(state=states(), shifts=st.lists(st.integers(-50 * 86_400, 50 * 86_400), max_size=3))
async def test_the_account_view_of_any_account(
    app: FastAPI, state: State, shifts: list[int]
) -> None:
    stored = await _store(app, state)
    reads, claims = app.state.resources.read_engine, _claims(stored.viewer_sub)
    body = await account_view(reads=reads, claims=claims, now=NOW)
    _check_facts(state, stored, _valid(body)["account"])

    # The view keeps each account's last body for as long as the clock alone would not change
    # it: at other moments (around the grace's end and an invitation's too), what it gives is
    # what it builds afresh.
    assert await account_view(reads=reads, claims=claims, now=NOW) is body  # kept
    grace = _BILLING[state.billing].get("past_due_since")
    edges = [NOW + timedelta(seconds=s) for s in shifts]
    if grace is not None:
        edges += [grace + PAST_DUE_GRACE, grace + PAST_DUE_GRACE + timedelta(microseconds=1)]
    edges += [NOW + 5 * DAY - timedelta(microseconds=1), NOW + 5 * DAY]  # Pending ones expire
    for at in edges:
        kept = await account_view(reads=reads, claims=claims, now=at)
        _BODIES.clear()
        assert kept == await account_view(reads=reads, claims=claims, now=at)
        _valid(kept)

    # PUT /web/account answers through the same view, in its own transaction.
    async with app.state.resources.sessionmaker() as db, db.begin():
        actor = Actor(user_id=None, name="Test", email="test@read-models.dev", client_address="")
        renamed = await rename_account(
            db=db,
            audit=AuditTrail(db, stored.account_id, actor),
            account_id=stored.account_id,
            name=f"Renamed {stored.tag}",
        )
    again = _valid(renamed)["account"]
    assert again["name"] == f"Renamed {stored.tag}"
    after = await account_view(
        reads=app.state.resources.read_engine, claims=_claims(stored.viewer_sub)
    )
    assert orjson.loads(after) == _valid(renamed)


async def test_an_identity_without_a_user_is_account_required(app: FastAPI) -> None:
    with pytest.raises(AccountRequired):
        await account_view(
            reads=app.state.resources.read_engine,
            claims=_claims(f"nobody-{uuid.uuid4().hex}"),
            now=NOW,
        )


@settings(max_examples=60, deadline=None, database=None)
@given(
    first=_names,
    last=st.text(max_size=20),
    account_name=st.text(min_size=1, max_size=30),
    elevation=st.none() | st.sampled_from(["support", "engineering"]),
    role=st.sampled_from(list(Role)),
    auth_type=st.sampled_from(list(AuthType)),
    verified=st.booleans(),
)
def test_the_session_view_of_any_caller(
    first: str,
    last: str,
    account_name: str,
    elevation: str | None,
    role: Role,
    auth_type: AuthType,
    verified: bool,
) -> None:
    caller = Caller(
        user_id=uuid.uuid4(),
        first_name=first,
        last_name=last,
        email="zoe@example-corp.com",
        auth_type=auth_type,
        elevation_role=elevation,
        account_id=uuid.uuid4(),
        account_name=account_name,
        role=role,
        email_verified=verified,
    )
    body = session_view(caller)
    model = SessionResponse.model_validate_json(body, strict=True)
    assert model.model_dump(mode="json", by_alias=True) == orjson.loads(body)
    assert model.session.user.id == caller.user_id
    assert (model.session.user.role, model.session.user.email_verified) == (role, verified)
    assert model.session.account.name == account_name
