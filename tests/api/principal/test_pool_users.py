"""Pool users a crash left without a console row are deleted by the worker, and no other
(api/identity/membership/pool_users.py, README "Background work"): against moto and the test
database."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select, text

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.identity.membership.pool_users import OrphanReport, PoolUserLedger, delete_orphans
from api.models import AuthType, PendingPoolUser, Role, User
from tests.api.conftest import MakeUser, SignedIn
from tests.api.identity.sign_in.test_registration import _form

AGE = timedelta(minutes=30)
LATER = datetime.now(UTC) + timedelta(days=1)  # every record is old by then


def _ledger(app: FastAPI) -> PoolUserLedger:
    return PoolUserLedger(app.state.resources.side_engine)


async def _clean_up(app: FastAPI, cognito: CognitoClient, now: datetime = LATER) -> OrphanReport:
    return await delete_orphans(app.state.resources.sessionmaker, cognito, older_than=AGE, now=now)


async def _in_pool(cognito: CognitoClient, username: str) -> bool:
    try:
        await cognito.admin_get_user(username)
    except UserNotFoundError:
        return False
    return True


async def _record(app: FastAPI, username: str) -> PendingPoolUser | None:
    async with app.state.resources.read_sessionmaker() as db:
        return await db.scalar(select(PendingPoolUser).where(PendingPoolUser.username == username))


async def _crashed_registration(app: FastAPI, cognito: CognitoClient, email: str) -> None:
    """What a registration leaves when its process dies right after AdminCreateUser: the pool
    user, and its transaction gone without its undo having run."""
    async with app.state.resources.sessionmaker() as db:
        await _ledger(app).creating(db, email)
        await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
        await db.rollback()  # the connection dies with the process: nothing of it commits


class TestCleanUp:
    async def test_a_pool_user_a_crash_left_is_deleted_and_the_address_registers(
        self, app: FastAPI, client: httpx.AsyncClient, cognito: CognitoClient
    ) -> None:
        form = _form()
        email = form["emailAddress"].strip().lower()
        await _crashed_registration(app, cognito, email)
        # Meanwhile the address is taken: the half-made registration blocks it.
        refused = await client.post("/web/registration", json=form)
        assert refused.json()["code"] == "EmailInUse"
        # Too young to be taken for an orphan.
        young = await _clean_up(app, cognito, now=datetime.now(UTC))
        assert await _in_pool(cognito, email) and await _record(app, email) is not None
        assert young.deleted == 0
        report = await _clean_up(app, cognito)
        assert report.deleted >= 1
        assert not await _in_pool(cognito, email)
        assert await _record(app, email) is None
        registered = await client.post("/web/registration", json=form)
        assert registered.status_code == 201, registered.text
        assert await _record(app, email) is None  # its commit removed the record

    async def test_a_registration_in_flight_is_never_touched_whatever_its_age(
        self, app: FastAPI, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        """The record stays locked by the request's transaction from before AdminCreateUser
        until the user's row commits: the clean-up skips it, then finds no record."""
        owner = await make_user()
        email = f"in-flight-{secrets.token_hex(4)}@example-corp.com"
        async with app.state.resources.sessionmaker() as db:
            await _ledger(app).creating(db, email)
            await cognito.admin_create_user(email, {"email": email}, suppress_message=True)
            report = await _clean_up(app, cognito)  # a day later, as far as it knows
            assert await _in_pool(cognito, email)
            db.add(
                User(
                    account_id=owner.account.id,
                    identity_id=email,
                    first_name="In",
                    last_name="Flight",
                    email=email,
                    auth_type=AuthType.EMAIL,
                    role=Role.MEMBER,
                )
            )
            await db.commit()
        await _clean_up(app, cognito)
        assert await _in_pool(cognito, email)
        assert await _record(app, email) is None
        assert report.failed == 0

    async def test_a_pool_user_with_a_row_is_kept(
        self, app: FastAPI, cognito: CognitoClient, make_user: MakeUser
    ) -> None:
        """A record left beside a user row (never made by the console's own flows, but a row
        is what counts): the record goes, the pool user stays."""
        user: SignedIn = await make_user()
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                text(
                    "INSERT INTO pending_pool_user (username, started_at) "
                    "VALUES (:u, now() - interval '2 hours')"
                ),
                {"u": user.user.identity_id},
            )
        report = await _clean_up(app, cognito, now=datetime.now(UTC))
        assert report.settled >= 1
        assert await _in_pool(cognito, user.user.identity_id)
        assert await _record(app, user.user.identity_id) is None

    async def test_a_creation_that_starts_while_the_clean_up_holds_the_name_waits_for_it(
        self, app: FastAPI
    ) -> None:
        """The clean-up has taken an old record of a name (and is deleting its pool user);
        a new registration of the same name records itself after it, so the clean-up can
        never delete the new pool user."""
        email = f"race-{secrets.token_hex(4)}@example-corp.com"
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                text(
                    "INSERT INTO pending_pool_user (username, started_at) "
                    "VALUES (:u, now() - interval '2 hours')"
                ),
                {"u": email},
            )
        async with app.state.resources.sessionmaker() as cleanup:
            await cleanup.execute(
                text("SELECT 1 FROM pending_pool_user WHERE username = :u FOR UPDATE"),
                {"u": email},
            )
            async with app.state.resources.sessionmaker() as request:
                creating = asyncio.create_task(_ledger(app).creating(request, email))
                await asyncio.sleep(0.5)
                assert not creating.done()  # waits for the clean-up
                await cleanup.execute(
                    text("DELETE FROM pending_pool_user WHERE username = :u"), {"u": email}
                )
                await cleanup.commit()
                await asyncio.wait_for(creating, 10)
                record = await _record(app, email)  # the request holds it, not committed
                assert record is not None
                assert record.started_at > datetime.now(UTC) - timedelta(minutes=1)
                await request.rollback()  # its registration failed: the record stays
        assert await _record(app, email) is not None
        await _clean_up(app, app.state.resources.cognito)
        assert await _record(app, email) is None


@pytest.mark.parametrize("path", ["registration", "invitation"])
async def test_a_committed_creation_leaves_no_record(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser, path: str
) -> None:
    if path == "registration":
        form = _form()
        email = form["emailAddress"].strip().lower()
        assert (await client.post("/web/registration", json=form)).status_code == 201
    else:
        owner = await make_user()
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(
                text('UPDATE "user" SET email_verified = true WHERE id = :id'),
                {"id": owner.user.id},
            )
        email = f"invitee-{secrets.token_hex(4)}@example-corp.com"
        invited = await client.post(
            "/web/users",
            headers=owner.headers,
            json={"firstName": "In", "lastName": "Vited", "email": email, "role": "Member"},
        )
        assert invited.status_code == 201, invited.text
    assert await _record(app, email) is None
