"""The migrations build exactly the models' schema, and downgrade cleanly."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

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
