"""The stand-in stack that API tests and benchmarks run against: a throwaway PostgreSQL
database built by the real migrations, moto (Cognito), localstripe (Stripe), the DNS stand-in
and the SMTP sink on loopback ports."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from api.app.features import periodic_tasks
from api.kernel.config import Settings
from devstack import bootstrap, services

PERIODIC_SCHEDULES = tuple(task.schedule for task in periodic_tasks())
"""The settings of the worker's periodic tasks (the features', api/app/features.py)."""

TEST_DATA = services.ROOT / ".testdata"


@dataclass
class Stack:
    """Running stand-ins and the settings that point the API at them."""

    settings: Settings
    postgres: services.Postgres
    database: str
    stand_ins: bootstrap.StandIns
    moto: services.ChildProcess
    localstripe: services.ChildProcess
    dns: services.ChildProcess
    smtp: services.ChildProcess

    def with_settings(self, **changes: object) -> Settings:
        """A copy of the settings with some changed, each named by its environment variable
        in lower case (``registration_limit_per_address=2``; :meth:`Settings.updated`)."""
        return self.settings.updated(**changes)


def settings_from_env(env: dict[str, str]) -> Settings:
    """Settings from the dev stack's environment mapping, without touching os.environ (JSON
    lists such as ``DNS_NAMESERVERS`` decoded as pydantic-settings does from the environment)."""
    values = {k.lower(): json.loads(v) if v.startswith("[") else v for k, v in env.items()}
    return Settings(**values)  # type: ignore[arg-type]


@contextmanager
def running_stack(
    data_dir: Path = TEST_DATA, smtp_delay_ms: float = 0, postgres_dir: str = "pg"
) -> Iterator[Stack]:
    """Start everything, yield, then stop it all and drop the database (``smtp_delay_ms``: the
    SMTP sink's hold on each message; ``postgres_dir``: the embedded server's folder under
    ``data_dir`` when ``DATABASE_URL`` names none, so processes that each need a server's
    connections to themselves start their own)."""
    postgres = services.start_postgres(data_dir / postgres_dir)
    database = f"console_test_{services.random_suffix()}"
    children: list[services.ChildProcess] = []
    try:
        url = postgres.create_database(database)
        services.migrate(url)
        children.append(services.start_moto(data_dir / "logs"))
        children.append(services.start_localstripe(data_dir / f"stripe-{database}"))
        children.append(services.start_dns(data_dir / f"dns-{database}" / "dns.json"))
        mailbox = data_dir / f"mail-{database}" / "mailbox.jsonl"
        children.append(services.start_smtp_sink(mailbox, delay_ms=smtp_delay_ms))
        public_url = "http://testserver"
        stand_ins = asyncio.run(
            bootstrap.bootstrap(
                children[0].url,
                children[1].url,
                public_url,
                children[2].port,
                children[3].port,
                str(mailbox),
            )
        )
        env = bootstrap.api_environment(stand_ins, database_url=url, public_url=public_url)
        env["LOG_LEVEL"] = "WARNING"
        # Tests run the periodic tasks themselves, at the moments they choose.
        for schedule in PERIODIC_SCHEDULES:
            env[schedule] = ""
        yield Stack(settings_from_env(env), postgres, database, stand_ins, *children)
    finally:
        for child in reversed(children):
            child.stop()
        postgres.drop_database(database)
        postgres.stop()
