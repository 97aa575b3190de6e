"""How a command fails: one line on stderr, ``error: <Code>: <message>``, and an exit status that
tells a script what kind of failure it was (:class:`ExitCode`).

The console answers every documented error with a body ``{"code": ..., "message": ...}``, which
the generated client parses into the ``Error_<Code>`` model of the operation; a status the
contract does not document for the operation comes back unparsed, and is read the same way
from its JSON body when it has one."""

from __future__ import annotations

import json
from enum import IntEnum
from http import HTTPStatus
from typing import IO, Any, TypeVar

import click

from console_cli.generated.types import Response

T = TypeVar("T")


class ExitCode(IntEnum):
    """The exit statuses of ``console-cli`` (docs/integrators/cli.md "Exit status")."""

    OK = 0
    ERROR = 1
    """Any other failure: a change the console refused (400, 409), an unexpected answer."""
    USAGE = 2
    """The command line (click's own checks), the configuration, or a request the console found
    invalid (422 ValidationError)."""
    AUTH = 3
    """Not signed in or the token has ended (401), or not allowed to (403)."""
    NOT_FOUND = 4
    """What the command names does not exist in the account (404)."""
    UNAVAILABLE = 5
    """Try again later: rate limited (429), the console unavailable (502, 503, 504) or not
    reached at all."""


_BY_STATUS = {
    HTTPStatus.UNAUTHORIZED: ExitCode.AUTH,
    HTTPStatus.FORBIDDEN: ExitCode.AUTH,
    HTTPStatus.NOT_FOUND: ExitCode.NOT_FOUND,
    HTTPStatus.UNPROCESSABLE_ENTITY: ExitCode.USAGE,
    HTTPStatus.TOO_MANY_REQUESTS: ExitCode.UNAVAILABLE,
    HTTPStatus.BAD_GATEWAY: ExitCode.UNAVAILABLE,
    HTTPStatus.SERVICE_UNAVAILABLE: ExitCode.UNAVAILABLE,
    HTTPStatus.GATEWAY_TIMEOUT: ExitCode.UNAVAILABLE,
}


class CliError(click.ClickException):
    """A failure shown as ``error: <code>: <message>`` on one line of stderr, exiting with
    ``exit_code``. Click shows it and exits when a command raises it."""

    def __init__(self, code: str, message: str, exit_code: ExitCode = ExitCode.ERROR) -> None:
        super().__init__(" ".join(message.split()))
        self.code = code
        self.exit_code = int(exit_code)  # type: ignore[misc]  # click reads it per instance

    def format_message(self) -> str:
        """``<code>: <message>``."""
        return f"{self.code}: {self.message}"

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the one line to ``file`` (stderr by default)."""
        click.echo(f"error: {self.format_message()}", file=file, err=file is None)


def exit_code_for(status: int) -> ExitCode:
    """The exit status for an HTTP error status."""
    return _BY_STATUS.get(HTTPStatus(status), ExitCode.ERROR)


def api_error(response: Response[Any]) -> CliError:
    """The :class:`CliError` for an error answer: its code and message from the parsed
    ``Error_<Code>`` model, else from its JSON body, else the HTTP status itself."""
    code, message = _code_and_message(response)
    return CliError(code, message, exit_code_for(response.status_code))


def expect(response: Response[Any], model: type[T]) -> T:
    """The parsed body of a successful answer, of the operation's success ``model``; an error
    answer raises its :class:`CliError`."""
    if response.status_code < 400 and isinstance(response.parsed, model):
        return response.parsed
    if response.status_code < 400:
        raise CliError(
            "UnexpectedResponse",
            f"HTTP {response.status_code} without the {model.__name__} the contract documents",
        )
    raise api_error(response)


def expect_no_content(response: Response[Any]) -> None:
    """A successful answer without a body (204); an error answer raises its :class:`CliError`."""
    if response.status_code >= 400:
        raise api_error(response)


def expect_content(response: Response[Any]) -> bytes:
    """The body of a successful answer as it came (a CSV download); an error answer raises its
    :class:`CliError`."""
    if response.status_code >= 400:
        raise api_error(response)
    return response.content


def _code_and_message(response: Response[Any]) -> tuple[str, str]:
    parsed = response.parsed
    code, message = getattr(parsed, "code", None), getattr(parsed, "message", None)
    if not (isinstance(code, str) and isinstance(message, str)):
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("code"), str):
            code, message = body["code"], str(body.get("message", ""))
        else:
            status = HTTPStatus(response.status_code)
            return f"HTTP{status.value}", status.phrase
    fields = getattr(parsed, "fields", None)  # Error_ValidationError: which fields, and why
    if isinstance(fields, list) and fields:
        details = "; ".join(
            field.field if field.message == message else f"{field.field}: {field.message}"
            for field in fields
        )
        message = f"{message} ({details})"
    return code, message
