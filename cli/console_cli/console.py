"""What every command is given: the configuration (the console's URL and the access token, from
the environment or the command line), whether to print JSON, and the generated client, made on
first use so that ``--help`` needs no configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import click
import httpx

from console_cli import __version__
from console_cli.errors import CliError, ExitCode
from console_cli.generated import AuthenticatedClient

URL_VARIABLE = "CONSOLE_URL"
TOKEN_VARIABLE = "CONSOLE_TOKEN"  # noqa: S105 (the variable's name)
TIMEOUT_SECONDS = 30.0


@dataclass
class Console:
    """The configuration of one ``console-cli`` run and its client."""

    url: str | None = None
    token: str | None = None
    json: bool = False
    _client: AuthenticatedClient | None = field(default=None, repr=False)

    @property
    def client(self) -> AuthenticatedClient:
        """The generated client for the console at :attr:`url`, sending :attr:`token` as
        ``Authorization: Bearer <token>``; a usage error when either is missing."""
        if self._client is None:
            if not self.url:
                raise CliError(
                    "MissingUrl",
                    f"no console URL: set {URL_VARIABLE} or pass --url",
                    ExitCode.USAGE,
                )
            if not self.url.startswith(("https://", "http://")):
                raise CliError(
                    "InvalidUrl",
                    f"the console URL {self.url!r} must start with https:// (or http://)",
                    ExitCode.USAGE,
                )
            if not self.token:
                raise CliError(
                    "MissingToken",
                    f"no access token: set {TOKEN_VARIABLE} or pass --token",
                    ExitCode.USAGE,
                )
            self._client = AuthenticatedClient(
                base_url=self.url.rstrip("/"),
                token=self.token,
                headers={"User-Agent": f"console-cli/{__version__}"},
                timeout=httpx.Timeout(TIMEOUT_SECONDS),
            )
        return self._client


pass_console = click.make_pass_decorator(Console, ensure=True)
"""Hands a command the run's :class:`Console`."""


def _set_json(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
    if value:
        ctx.ensure_object(Console).json = True


json_option = click.option(
    "--json",
    is_flag=True,
    expose_value=False,
    callback=_set_json,
    help="Print JSON (the contract's field names) instead of a table.",
)
"""``--json``, taken by the root command and by each command that prints something."""
