"""The migrations build exactly the models' schema, and downgrade cleanly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

from api.principal.api_keys import hash_api_key
from devstack.services import ROOT, random_suffix
from devstack.stack import Stack


def _config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    return config


def _sql_on(url: str, name: str) -> Callable[[str], list[asyncpg.Record]]:
    """Run one statement on the database ``name`` (at ``url``'s server) and fetch its rows."""
    parts = make_url(url)

    async def run(statement: str) -> list[asyncpg.Record]:
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

    return lambda statement: asyncio.run(run(statement))


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
    """The verified-domains upgrade: an account that required Google SSO keeps it; each domain
    it listed becomes a Pending ``sso_domain`` with a token of its own (auto-join waits for the
    proof)."""
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    sql = _sql_on(url, name)

    try:
        config = _config(url)
        command.upgrade(config, "8c4e2a7b91d0")
        sql(
            "INSERT INTO account (id, name, api_key, require_google_sso, sso_domains) VALUES "
            "('00000000-0000-0000-0000-000000000001', 'Acme', 'ak_1', true, "
            "'{acme.dev, Acme.dev.}'), "
            "('00000000-0000-0000-0000-000000000002', 'Plain', 'ak_2', false, '{}')"
        )
        command.upgrade(config, "head")
        rows = sql(
            "SELECT a.name, a.require_google_sso, d.domain, d.state, length(d.token) AS n "
            "FROM account a JOIN sso_domain d ON d.account_id = a.id"
        )
        assert [tuple(r) for r in rows] == [("Acme", True, "acme.dev", "Pending", 32)]
        # API keys at rest: the keys moved to api_key, hashed and sealed; account.api_key went.
        keys = sql(
            "SELECT a.name, k.key_hash, k.last4, position('ak_1' in encode(k.sealed, 'escape'))"
            " FROM account a JOIN api_key k ON k.account_id = a.id ORDER BY a.name"
        )
        assert [tuple(r) for r in keys] == [
            ("Acme", hash_api_key("ak_1"), "ak_1", 0),
            ("Plain", hash_api_key("ak_2"), "ak_2", 0),
        ]
        command.downgrade(config, "8c4e2a7b91d0")
        back = sql("SELECT name, api_key FROM account ORDER BY name")
        assert [tuple(r) for r in back] == [("Acme", "ak_1"), ("Plain", "ak_2")]
        back = sql("SELECT name, sso_domains FROM account ORDER BY name")
        assert [tuple(r) for r in back] == [("Acme", ["acme.dev"]), ("Plain", [])]
    finally:
        stack.postgres.drop_database(name)


def test_roles_upgrade_makes_existing_users_owners_and_reveals_audit_events(stack: Stack) -> None:
    """The roles and audit-log upgrade: every user there was becomes an Owner with no pending
    invitation (nobody loses what they could do), and the key reveals of the API-keys revision
    move into the audit log."""
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    sql = _sql_on(url, name)

    try:
        config = _config(url)
        command.upgrade(config, "b3f8c1d2e4a6")
        for statement in (
            "INSERT INTO account (id, name) VALUES (gen_random_uuid(), 'Acme')",
            'INSERT INTO "user" (id, account_id, identity_id, first_name, last_name, email,'
            " auth_type) SELECT gen_random_uuid(), id, 'ada@acme.dev', 'Ada', 'Lovelace',"
            " 'ada@acme.dev', 'Email' FROM account",
            "INSERT INTO api_key (id, account_id, key_hash, sealed, encryption_key_id, last4)"
            " SELECT gen_random_uuid(), id, 'h', 'x', 'k1', '1a2b' FROM account",
            "INSERT INTO api_key_reveal (key_id, user_id, purpose) SELECT k.id, u.id, p"
            " FROM api_key AS k, \"user\" AS u, unnest(ARRAY['reveal', 'copy']) AS p",
        ):
            sql(statement)
        [(key,)] = sql("SELECT id::text FROM api_key")
        command.upgrade(config, "head")
        users = sql('SELECT role::text, invited_at, signed_in_at FROM "user"')
        assert [tuple(r) for r in users] == [("Owner", None, None)]
        events = sql(
            "SELECT action, actor_name, actor_email, target_type, target_id, target_label"
            " FROM audit_event ORDER BY action"
        )
        assert [tuple(r) for r in events] == [
            ("api_key.copied", "Ada Lovelace", "ada@acme.dev", "api_key", key, "ak_…1a2b"),
            ("api_key.revealed", "Ada Lovelace", "ada@acme.dev", "api_key", key, "ak_…1a2b"),
        ]
    finally:
        stack.postgres.drop_database(name)


def test_no_revision_imports_the_api() -> None:
    # A revision must do tomorrow what it did the day it was written: code it borrowed from
    # api/ would change under it, so whatever it needs is written out in the revision.
    import ast

    for path in sorted((ROOT / "migrations" / "versions").glob("*.py")):
        tree = ast.parse(path.read_text())
        imported = {
            name
            for node in ast.walk(tree)
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
        }
        assert not {name for name in imported if name == "api" or name.startswith("api.")}, path


def test_key_usage_is_filled_in_only_where_it_is_certain(stack: Stack) -> None:
    """The usage-by-key upgrade: records stored before carry no key, so a key's credits of a
    cycle are filled in from the account's rollup only when that key sent every record of the
    cycle; otherwise they start at zero (never a guess). Each cycle's total (what the allowance
    is checked against) is the sum of its platforms' rollups."""
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    sql = _sql_on(url, name)
    try:
        config = _config(url)
        command.upgrade(config, "e4b8c2d6f1a9")
        for statement in (
            "INSERT INTO account (id, name) VALUES"
            " ('00000000-0000-0000-0000-00000000000a', 'One key'),"
            " ('00000000-0000-0000-0000-00000000000b', 'Two keys')",
            "INSERT INTO api_key (id, account_id, key_hash, sealed, encryption_key_id, last4)"
            " SELECT gen_random_uuid(), id, sha256((id::text || g)::bytea), 'x', 'k1', '1a2b'"
            " FROM account AS a,"
            " generate_series(1, CASE WHEN a.name = 'Two keys' THEN 2 ELSE 1 END) AS g",
            "INSERT INTO usage_record (account_id, idempotency_key, platform, runs, credits,"
            " recorded_at, cycle_start) SELECT id, 'r' || n, 'web', 1, 5, '2026-10-01Z',"
            " '2026-10-01Z' FROM account, generate_series(1, 4) AS n",
            "INSERT INTO usage (account_id, cycle_start, platform, runs, credits) SELECT id,"
            " '2026-10-01Z', 'web', 4, 20 FROM account",
            # One key sent all four records; of the two keys, each sent two.
            "INSERT INTO api_key_usage (key_id, cycle_start, records) SELECT k.id, '2026-10-01Z',"
            " CASE WHEN a.name = 'One key' THEN 4 ELSE 2 END"
            " FROM api_key AS k JOIN account AS a ON a.id = k.account_id",
        ):
            sql(statement)
        command.upgrade(config, "head")
        rows = sql(
            "SELECT a.name, k.records, k.runs, k.credits FROM api_key_usage AS k"
            " JOIN api_key AS ak ON ak.id = k.key_id JOIN account AS a ON a.id = ak.account_id"
            " ORDER BY a.name"
        )
        assert [tuple(r) for r in rows] == [
            ("One key", 4, 4, 20),
            ("Two keys", 2, 0, 0),
            ("Two keys", 2, 0, 0),
        ]
        totals = sql(
            "SELECT a.name, t.runs, t.credits FROM usage_total AS t"
            " JOIN account AS a ON a.id = t.account_id ORDER BY a.name"
        )
        assert [tuple(r) for r in totals] == [("One key", 4, 20), ("Two keys", 4, 20)]
    finally:
        stack.postgres.drop_database(name)


# Five accounts with a SAML connection each (ids ...0a to ...0e), before the linking upgrade:
# a: connected and replaced by its Owner; b: connected by an Admin, who then required SAML;
# c: no audit entry left; d: connected by an Owner, replaced by an Admin; e: connected by a
# user who was an Owner then and is an Admin now.
_SAML_ACCOUNTS = """
INSERT INTO account (id, name, require_saml_sso) VALUES
  ('00000000-0000-0000-0000-00000000000a', 'A', false),
  ('00000000-0000-0000-0000-00000000000b', 'B', true),
  ('00000000-0000-0000-0000-00000000000c', 'C', false),
  ('00000000-0000-0000-0000-00000000000d', 'D', false),
  ('00000000-0000-0000-0000-00000000000e', 'E', false);
INSERT INTO saml_connection (id, account_id, provider_name, metadata_xml, idp_entity_id,
  sso_url, certificate_expires_at, idp_identifiers, metadata_checked_at)
  SELECT gen_random_uuid(), id, 'saml-' || name, '<x/>', 'https://idp', 'https://idp/sso',
    now(), '{}', now() FROM account;
INSERT INTO "user" (id, account_id, identity_id, first_name, last_name, email, auth_type, role)
  VALUES
  ('10000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000a', 'oa', 'O',
   'A', 'oa@x.dev', 'Email', 'Owner'),
  ('10000000-0000-0000-0000-00000000000b', '00000000-0000-0000-0000-00000000000b', 'ab', 'A',
   'B', 'ab@x.dev', 'Email', 'Admin'),
  ('10000000-0000-0000-0000-00000000000d', '00000000-0000-0000-0000-00000000000d', 'od', 'O',
   'D', 'od@x.dev', 'Email', 'Owner'),
  ('20000000-0000-0000-0000-00000000000d', '00000000-0000-0000-0000-00000000000d', 'ad', 'A',
   'D', 'ad@x.dev', 'Email', 'Admin'),
  ('10000000-0000-0000-0000-00000000000e', '00000000-0000-0000-0000-00000000000e', 'ae', 'A',
   'E', 'ae@x.dev', 'Email', 'Admin');
INSERT INTO audit_event (id, occurred_at, account_id, actor_user_id, actor_name, actor_email,
  client_address, action) VALUES
  (gen_random_uuid(), '2026-10-01Z', '00000000-0000-0000-0000-00000000000a',
   '10000000-0000-0000-0000-00000000000a', 'O A', 'oa@x.dev', '', 'sso.saml_connected'),
  (gen_random_uuid(), '2026-10-02Z', '00000000-0000-0000-0000-00000000000a',
   '10000000-0000-0000-0000-00000000000a', 'O A', 'oa@x.dev', '', 'sso.saml_updated'),
  (gen_random_uuid(), '2026-10-01Z', '00000000-0000-0000-0000-00000000000b',
   '10000000-0000-0000-0000-00000000000b', 'A B', 'ab@x.dev', '', 'sso.saml_connected'),
  (gen_random_uuid(), '2026-10-01Z', '00000000-0000-0000-0000-00000000000d',
   '10000000-0000-0000-0000-00000000000d', 'O D', 'od@x.dev', '', 'sso.saml_connected'),
  (gen_random_uuid(), '2026-10-02Z', '00000000-0000-0000-0000-00000000000d',
   '20000000-0000-0000-0000-00000000000d', 'A D', 'ad@x.dev', '', 'sso.saml_updated'),
  (gen_random_uuid(), '2026-10-01Z', '00000000-0000-0000-0000-00000000000e',
   '10000000-0000-0000-0000-00000000000e', 'A E', 'ae@x.dev', '', 'sso.saml_connected');
"""


def test_saml_connections_link_existing_users_only_where_an_owner_made_them(
    stack: Stack,
) -> None:
    """The SAML linking upgrade (README "Security model", "Who someone is"): a connection is
    confirmed only when the account's audit log names its creator, that creator is an Owner
    today, and no one but an Owner replaced its metadata since; an unconfirmed connection's
    account stops requiring SAML (its Owners would be kept out)."""
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    sql = _sql_on(url, name)
    try:
        config = _config(url)
        command.upgrade(config, "7d1e3f5a9c2b")
        for statement in _SAML_ACCOUNTS.split(";"):
            if statement.strip():
                sql(statement)
        command.upgrade(config, "head")
        rows = sql(
            "SELECT a.name, c.created_by_user_id::text, c.linking_confirmed_at IS NOT NULL,"
            " c.linking_confirmed_by_user_id::text, a.require_saml_sso"
            " FROM saml_connection c JOIN account a ON a.id = c.account_id ORDER BY a.name"
        )
        owner_a = "10000000-0000-0000-0000-00000000000a"
        assert [tuple(r) for r in rows] == [
            ("A", owner_a, True, owner_a, False),
            ("B", "10000000-0000-0000-0000-00000000000b", False, None, False),
            ("C", None, False, None, False),
            ("D", "10000000-0000-0000-0000-00000000000d", False, None, False),
            ("E", "10000000-0000-0000-0000-00000000000e", False, None, False),
        ]
        command.downgrade(config, "7d1e3f5a9c2b")
        command.upgrade(config, "head")
    finally:
        stack.postgres.drop_database(name)


def test_the_fixed_groups_become_groups_of_the_directories_that_used_them(stack: Stack) -> None:
    """The directory-groups upgrade: an account with a SCIM token gets ``owners``, ``admins``
    and ``members`` as its directory's groups, mapped to their roles and holding the users of
    those roles, so its directory's requests to them work on; an account without one gets
    none."""
    name = f"console_migrate_{random_suffix()}"
    url = stack.postgres.create_database(name)
    sql = _sql_on(url, name)
    try:
        config = _config(url)
        command.upgrade(config, "7d1e3f5a9c2b")
        for statement in (
            "INSERT INTO account (id, name) VALUES"
            " ('00000000-0000-0000-0000-00000000000c', 'Synced'),"
            " ('00000000-0000-0000-0000-00000000000d', 'Plain')",
            'INSERT INTO "user" (id, account_id, identity_id, first_name, last_name, email,'
            " auth_type, role) SELECT gen_random_uuid(), a.id, r || '@' || a.name || '.dev',"
            " r, 'User', r || '@' || a.name || '.dev', 'Email', CAST(r AS user_role)"
            " FROM account AS a, unnest(ARRAY['Owner', 'Admin', 'Member']) AS r",
            "INSERT INTO scim_token (id, account_id, token_hash, last4) VALUES (gen_random_uuid(),"
            " '00000000-0000-0000-0000-00000000000c', 'h', 'abcd')",
        ):
            sql(statement)
        command.upgrade(config, "3e9b7c1d5a24")
        groups = sql(
            "SELECT g.id, g.display_name, g.role::text, u.first_name FROM directory_group AS g"
            " JOIN directory_group_member AS m ON m.account_id = g.account_id"
            ' AND m.group_id = g.id JOIN "user" AS u ON u.id = m.user_id ORDER BY g.id'
        )
        assert [tuple(r) for r in groups] == [
            ("admins", "Admins", "Admin", "Admin"),
            ("members", "Members", "Member", "Member"),
            ("owners", "Owners", "Owner", "Owner"),
        ]
        accounts = sql("SELECT DISTINCT account_id::text FROM directory_group")
        assert [r[0] for r in accounts] == ["00000000-0000-0000-0000-00000000000c"]
        command.downgrade(config, "7d1e3f5a9c2b")
    finally:
        stack.postgres.drop_database(name)
