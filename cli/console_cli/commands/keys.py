"""``console-cli keys``: the account's metering API keys (the contract's ``api keys`` tag): list,
roll with an overlap, set a monthly limit, reveal. A key is named by its id, or ``current``
(the newest, the one to meter with)."""

from __future__ import annotations

import uuid
from typing import Any

import click
from click.core import ParameterSource

from console_cli.console import Console, json_option, pass_console
from console_cli.errors import CliError, ExitCode, expect
from console_cli.generated.api.api_keys import list_keys, reveal_key, roll_key, update_key
from console_cli.generated.models import (
    ApiKeysResponse,
    ApiKeyUpdate,
    ApiKeyView,
    RevealedKey,
    RevealRequest,
    RevealRequestPurpose,
    RollRequest,
    RollRequestOverlap,
)
from console_cli.output import print_json, show

CURRENT = "current"
MAX_MONTHLY_LIMIT = 10**12  # the contract's maximum of monthlyLimit
HEADERS = ("ID", "KEY", "CURRENT", "CREATED", "EXPIRES", "LAST USED", "REQUESTS", "MONTHLY LIMIT")


class _Limit(click.ParamType[int | None]):
    """A monthly limit of requests: a whole number from 0, or ``none`` for no limit."""

    name = "LIMIT"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> int | None:
        """``none`` as None, else the number."""
        if value is None or isinstance(value, int):
            return value
        if str(value).strip().lower() == "none":
            return None
        try:
            number = int(value)
        except ValueError:
            self.fail(f"{value!r} is neither a whole number nor 'none'", param, ctx)
        if not 0 <= number <= MAX_MONTHLY_LIMIT:
            self.fail(f"{number} is not between 0 and {MAX_MONTHLY_LIMIT}", param, ctx)
        return number


@click.group()
def keys() -> None:
    """Manage the account's metering API keys. Owners and Admins change them; any role
    reveals the current one. KEY is a key id, or 'current' (the newest)."""


@keys.command("list")
@json_option
@pass_console
def list_(console: Console) -> None:
    """List the keys that still work. The current one first, with this billing cycle's
    requests and each key's monthly limit."""
    _show_keys(console, expect(list_keys.sync_detailed(client=console.client), ApiKeysResponse))


@keys.command()
@click.option(
    "--overlap",
    type=click.Choice([overlap.value for overlap in RollRequestOverlap]),
    required=True,
    help="How long the current key keeps working beside the new one.",
)
@click.option(
    "--monthly-limit",
    type=_Limit(),
    help="The new key's monthly limit of requests, or 'none' (default: the current key's).",
)
@json_option
@pass_console
def roll(console: Console, overlap: str, monthly_limit: Any) -> None:
    """Make a new key. The current one keeps working for the overlap, then stops; print the
    new key with `keys reveal`."""
    body = RollRequest(overlap=RollRequestOverlap(overlap))
    if _given("monthly_limit"):  # `--monthly-limit none` too: the new key has no limit
        body.monthly_limit = monthly_limit
    answer = roll_key.sync_detailed(client=console.client, body=body)
    _show_keys(console, expect(answer, ApiKeysResponse))


@keys.command("set-limit")
@click.argument("key")
@click.argument("limit", type=_Limit())
@json_option
@pass_console
def set_limit(console: Console, key: str, limit: int | None) -> None:
    """Set KEY's monthly LIMIT of requests. LIMIT is a whole number or 'none'; past it, the
    metering intake refuses the key's batches until the next billing cycle."""
    key_id = resolve_key(console, key)
    body = ApiKeyUpdate(monthly_limit=limit)
    answer = update_key.sync_detailed(key_id, client=console.client, body=body)
    _show_keys(console, expect(answer, ApiKeysResponse))


@keys.command()
@click.argument("key", default=CURRENT)
@json_option
@pass_console
def reveal(console: Console, key: str) -> None:
    """Print KEY itself, to meter with. KEY is 'current' when left out; the console records
    the reveal in the audit log."""
    key_id = resolve_key(console, key)
    body = RevealRequest(purpose=RevealRequestPurpose.REVEAL)
    answer = reveal_key.sync_detailed(key_id, client=console.client, body=body)
    revealed = expect(answer, RevealedKey)
    if console.json:
        print_json(revealed.to_dict())
    else:
        click.echo(revealed.key)


def resolve_key(console: Console, key: str) -> uuid.UUID:
    """The id of ``key``: a key id as it is, ``current`` the newest working key's."""
    if key.strip().lower() == CURRENT:
        found = expect(list_keys.sync_detailed(client=console.client), ApiKeysResponse).keys
        if not found:
            raise CliError("NotFound", "the account has no working key", ExitCode.NOT_FOUND)
        return found[0].id
    try:
        return uuid.UUID(key)
    except ValueError:
        raise click.BadParameter(f"{key!r} is neither a key id nor '{CURRENT}'") from None


def _given(name: str) -> bool:
    """Whether the option ``name`` was on the command line."""
    source = click.get_current_context().get_parameter_source(name)
    return source is ParameterSource.COMMANDLINE


def _show_keys(console: Console, answer: ApiKeysResponse) -> None:
    rows = [_row(key, index == 0) for index, key in enumerate(answer.keys)]
    show(console, [key.to_dict() for key in answer.keys], HEADERS, rows)


def _row(key: ApiKeyView, current: bool) -> tuple[Any, ...]:
    return (
        key.id,
        key.masked,
        current,
        key.created_at,
        key.expires_at,
        key.last_used_at,
        key.requests_this_cycle,
        key.monthly_limit if key.monthly_limit is not None else "none",
    )
