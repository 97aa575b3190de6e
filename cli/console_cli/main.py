"""The ``console-cli`` command: its options (where the console is, the access token, JSON or a
table) and its groups of commands (:data:`console_cli.commands.GROUPS`)."""

from __future__ import annotations

from typing import Any

import click
import httpx

from console_cli import __version__
from console_cli.commands import GROUPS
from console_cli.console import TOKEN_VARIABLE, URL_VARIABLE, Console, json_option
from console_cli.errors import CliError, ExitCode


class _ConsoleGroup(click.Group):
    """The root group: a console that cannot be reached is an error line, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except httpx.TimeoutException as error:
            raise CliError(
                "Timeout", f"no answer from {_url(ctx)}: {error}", ExitCode.UNAVAILABLE
            ) from error
        except httpx.TransportError as error:
            raise CliError(
                "ConnectionFailed", f"could not reach {_url(ctx)}: {error}", ExitCode.UNAVAILABLE
            ) from error


def _url(ctx: click.Context) -> str:
    return ctx.ensure_object(Console).url or "the console"


@click.group(
    cls=_ConsoleGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=(
        "Exit status: 0 done, 1 refused or failed, 2 usage (or a value the console found "
        "invalid), 3 not signed in or not allowed (401, 403), 4 not found, 5 try again later "
        "(rate limited, unavailable, unreachable)."
    ),
)
@click.option(
    "--url",
    envvar=URL_VARIABLE,
    show_envvar=True,
    metavar="URL",
    help="The console's address, such as https://console.example.com.",
)
@click.option(
    "--token",
    envvar=TOKEN_VARIABLE,
    show_envvar=True,
    metavar="TOKEN",
    help=(
        'An access token, sent as "Authorization: Bearer TOKEN": an access token for automation '
        "(cat_...) or a signed-in user's access token. Prefer the environment variable: a "
        "command line is visible to the machine's other users."
    ),
)
@json_option
@click.version_option(__version__, "--version", prog_name="console-cli")
@click.pass_context
def cli(ctx: click.Context, url: str | None, token: str | None) -> None:
    """The account console from the command line: users, metering API keys, the audit log and
    usage. Each command acts as the user (or the automation) whose token it sends, with that
    role's permissions."""
    console = ctx.ensure_object(Console)
    console.url, console.token = url, token


for _group in GROUPS:
    cli.add_command(_group)


def main() -> None:
    """The ``console-cli`` console script."""
    cli(prog_name="console-cli")
