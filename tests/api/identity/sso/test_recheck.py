"""The daily re-check of verified domains (api/identity/sso/recheck.py, README "Verified domains"):
against the DNS stand-in, with the app's own resolver and mailer."""

from __future__ import annotations

import socket
import uuid
from datetime import UTC, datetime, timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import select, update

from api.adapters.dns_resolver import DnsResolver
from api.identity.sso.recheck import RecheckReport, recheck_due, run_once
from api.models import AuditEvent, AuthType, SsoDomain
from devstack.stack import Stack
from tests.api.conftest import (
    MakeFederated,
    MakeUser,
    SignedIn,
    mails_to,
    publish_txt,
    require_google_sso,
    sso_lookup,
    unique_domain,
    verified_domain,
)

DAY_S = 24 * 3600


async def _checked_days_ago(app: FastAPI, domain_id: str, days: float) -> datetime:
    when = datetime.now(UTC) - timedelta(days=days)
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(SsoDomain).where(SsoDomain.id == uuid.UUID(domain_id)).values(checked_at=when)
        )
    return when


async def _row(app: FastAPI, domain_id: str) -> SsoDomain:
    async with app.state.resources.sessionmaker() as db:
        row = await db.scalar(select(SsoDomain).where(SsoDomain.id == uuid.UUID(domain_id)))
    assert row is not None
    return row


async def _recheck(app: FastAPI, resolver: DnsResolver | None = None) -> RecheckReport:
    state = app.state.resources
    return await recheck_due(state.sessionmaker, resolver or state.dns_resolver, interval_s=DAY_S)


async def _owner_with_verified_domain(
    app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
) -> tuple[SignedIn, str, dict[str, str]]:
    domain = unique_domain()
    owner = await make_user(
        account_name="Recheck Co", email=f"ops@{domain}", auth_type=AuthType.GOOGLE_SSO
    )
    await make_user(account=owner.account, email=f"dev@{domain}")
    verified = await verified_domain(client, owner.headers, domain)
    return owner, domain, verified


class TestRecheck:
    async def test_a_record_still_there_keeps_the_domain_verified(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, _, verified = await _owner_with_verified_domain(app, client, make_user)
        before = await _checked_days_ago(app, verified["id"], 2)
        report = await _recheck(app)
        assert report.kept >= 1
        row = await _row(app, verified["id"])
        assert row.state == "Verified"
        assert row.checked_at is not None and row.checked_at > before + timedelta(days=1)

    async def test_a_domain_checked_within_the_day_is_left_alone(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain, verified = await _owner_with_verified_domain(app, client, make_user)
        await publish_txt(client, domain)  # gone, but not due yet
        checked = await _checked_days_ago(app, verified["id"], 0.5)
        await _recheck(app)
        row = await _row(app, verified["id"])
        assert (row.state, row.checked_at) == ("Verified", checked)

    async def test_a_record_gone_loses_the_domain_stops_auto_join_and_emails_the_users(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        make_user: MakeUser,
        make_federated: MakeFederated,
    ) -> None:
        owner, domain, verified = await _owner_with_verified_domain(app, client, make_user)
        await require_google_sso(app, owner.account)
        await publish_txt(client, domain, "v=spf1 -all")
        await _checked_days_ago(app, verified["id"], 2)

        report = await _recheck(app)
        assert report.lost >= 1
        row = await _row(app, verified["id"])
        assert (row.state, row.failure) == ("Lost", "RecordNotFound")

        # Auto-join stopped at once: a colleague finds no account to join.
        colleague = await make_federated(f"new@{domain}")
        lookup = await sso_lookup(client, colleague)
        assert lookup.json() == {"accounts": [], "domain": domain}
        # Both users of the account got the notice.
        for user in (f"ops@{domain}", f"dev@{domain}"):
            [mail] = await mails_to(client, user)
            assert mail["subject"] == f"Google sign-in auto-join paused for {domain}"
            assert f"No autostep-verification TXT record was found at {domain}" in mail["body"]
            assert verified["record"]["value"] in mail["body"]
        # The account still requires Google SSO; its domain list shows no verified domain.
        account = (await client.get("/web/account", headers=owner.headers)).json()["account"]
        assert account["sso"] == {"isGoogleSSO": True, "isSamlSSO": False, "domains": []}
        # The account's audit log says so (README "Audit log"), by the domain check, not a user.
        async with app.state.resources.sessionmaker() as db:
            [lost] = await db.scalars(
                select(AuditEvent).where(
                    AuditEvent.account_id == owner.account.id,
                    AuditEvent.action == "sso.domain_lost",
                )
            )
        assert (lost.actor_user_id, lost.actor_name, lost.target_label) == (
            None,
            "Domain check",
            domain,
        )
        assert lost.changes == {
            "state": {"from": "Verified", "to": "Lost"},
            "failure": {"from": None, "to": "RecordNotFound"},
        }

    async def test_dns_unreachable_changes_nothing(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain, verified = await _owner_with_verified_domain(app, client, make_user)
        await publish_txt(client, domain)
        checked = await _checked_days_ago(app, verified["id"], 2)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
            silent.bind(("127.0.0.1", 0))
            hung = DnsResolver(
                nameservers=["127.0.0.1"],
                port=silent.getsockname()[1],
                timeout_s=0.1,
                lifetime_s=0.2,
            )
            report = await _recheck(app, hung)
        assert report.unreachable >= 1
        row = await _row(app, verified["id"])
        assert (row.state, row.checked_at) == ("Verified", checked)
        # The next pass, with DNS back, finds the record gone.
        await _recheck(app)
        assert (await _row(app, verified["id"])).state == "Lost"

    async def test_the_command_checks_every_verified_domain_with_all(
        self, stack: Stack, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain, verified = await _owner_with_verified_domain(app, client, make_user)
        await publish_txt(client, domain)  # checked a moment ago, so not due: --all takes it
        report = await run_once(stack.settings, every=True)
        assert report.lost >= 1
        assert (await _row(app, verified["id"])).state == "Lost"
