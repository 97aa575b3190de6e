"""The stand-in stack that API tests and benchmarks run against: a throwaway PostgreSQL
database built by the real migrations, moto (Cognito) and localstripe (Stripe) on loopback ports."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from api.config import Settings
from api.devstack import bootstrap, services

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

    def with_settings(self, **changes: object) -> Settings:
        """A copy of the settings with some fields changed."""
        return self.settings.model_copy(update=changes)


def settings_from_env(env: dict[str, str]) -> Settings:
    """Settings from the dev stack's environment mapping, without touching os.environ."""
    return Settings(**{key.lower(): value for key, value in env.items()})  # type: ignore[arg-type]


@contextmanager
def running_stack(data_dir: Path = TEST_DATA) -> Iterator[Stack]:
    """Start everything, yield, then stop it all and drop the database."""
    postgres = services.start_postgres(data_dir / "pg")
    database = f"console_test_{services.random_suffix()}"
    children: list[services.ChildProcess] = []
    try:
        url = postgres.create_database(database)
        services.migrate(url)
        children.append(services.start_moto(data_dir / "logs"))
        children.append(services.start_localstripe(data_dir / f"stripe-{database}"))
        public_url = "http://testserver"
        stand_ins = asyncio.run(bootstrap.bootstrap(children[0].url, children[1].url, public_url))
        env = bootstrap.api_environment(stand_ins, database_url=url, public_url=public_url)
        env["LOG_LEVEL"] = "WARNING"
        yield Stack(settings_from_env(env), postgres, database, stand_ins, *children)
    finally:
        for child in reversed(children):
            child.stop()
        postgres.drop_database(database)
        postgres.stop()
