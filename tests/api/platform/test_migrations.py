"""The migrations build exactly the models' schema, and downgrade cleanly."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from api.auth.api_keys import hash_api_key
from api.devstack.services import ROOT, random_suffix
from api.devstack.stack import Stack


def _config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    return config


def test_head_matches_the_models(stack: Stack) -> None:
    # The stack's database was built by `alembic upgrade head`; check raises on any drift.
    command.check(_config(stack.settings.database_url))


def test_downgrade_to_base_and_up_again(stack: Stack) -> None:
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    try:
        config = _config(url)
        command.upgrade(config, "head")
        command.downgrade(config, "base")
        command.upgrade(config, "head")
        command.check(config)
    finally:
        stack.postgres.drop_database(name)


def test_google_sso_domains_are_carried_over_as_pending(stack: Stack) -> None:
    """Issue 17's upgrade: an account that required Google SSO keeps it; each domain it listed
    becomes a Pending ``sso_domain`` with a token of its own (auto-join waits for the proof)."""
    import asyncio

    import asyncpg
    from sqlalchemy.engine import make_url

    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    parts = make_url(url)

    async def sql(statement: str) -> list[asyncpg.Record]:
        conn = await asyncpg.connect(
            user=parts.username or "postgres",
            password=parts.password,
            host=parts.query.get("host") or parts.host or "127.0.0.1",
            port=parts.port or 5432,
            database=name,
        )
        try:
            return list(await conn.fetch(statement))
        finally:
            await conn.close()

    try:
        config = _config(url)
        command.upgrade(config, "8c4e2a7b91d0")
        asyncio.run(
            sql(
                "INSERT INTO account (id, name, api_key, require_google_sso, sso_domains) VALUES "
                "('00000000-0000-0000-0000-000000000001', 'Acme', 'ak_1', true, "
                "'{acme.dev, Acme.dev.}'), "
                "('00000000-0000-0000-0000-000000000002', 'Plain', 'ak_2', false, '{}')"
            )
        )
        command.upgrade(config, "head")
        rows = asyncio.run(
            sql(
                "SELECT a.name, a.require_google_sso, d.domain, d.state, length(d.token) AS n "
                "FROM account a JOIN sso_domain d ON d.account_id = a.id"
            )
        )
        assert [tuple(r) for r in rows] == [("Acme", True, "acme.dev", "Pending", 32)]
        # Issue 14: the keys moved to api_key, hashed and sealed, and account.api_key went.
        keys = asyncio.run(
            sql(
                "SELECT a.name, k.key_hash, k.last4, position('ak_1' in encode(k.sealed, 'escape'))"
                " FROM account a JOIN api_key k ON k.account_id = a.id ORDER BY a.name"
            )
        )
        assert [tuple(r) for r in keys] == [
            ("Acme", hash_api_key("ak_1"), "ak_1", 0),
            ("Plain", hash_api_key("ak_2"), "ak_2", 0),
        ]
        command.downgrade(config, "8c4e2a7b91d0")
        back = asyncio.run(sql("SELECT name, api_key FROM account ORDER BY name"))
        assert [tuple(r) for r in back] == [("Acme", "ak_1"), ("Plain", "ak_2")]
        back = asyncio.run(sql("SELECT name, sso_domains FROM account ORDER BY name"))
        assert [tuple(r) for r in back] == [("Acme", ["acme.dev"]), ("Plain", [])]
    finally:
        stack.postgres.drop_database(name)
