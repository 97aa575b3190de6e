"""What a command prints on stdout: a table to read by default, or with ``--json`` the answer as
JSON in the contract's own field names (``to_dict()`` of the generated models)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import click

from console_cli.console import Console


def cell(value: Any) -> str:
    """How a value reads in a table: times in UTC to the minute, nothing as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1%}"
    return str(value)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """``rows`` under ``headers``, each column as wide as its widest cell; a table with no row
    says so."""
    cells = [[cell(value) for value in row] for row in rows]
    if not cells:
        return "(none)"
    widths = [max(len(line[i]) for line in [list(headers), *cells]) for i in range(len(headers))]
    lines = [list(headers), *cells]
    return "\n".join(
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def show(
    console: Console, data: Any, headers: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Print ``data`` as JSON with ``--json``, else ``rows`` as a table."""
    if console.json:
        print_json(data)
    else:
        click.echo(table(headers, rows))


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def write_bytes(content: bytes) -> None:
    """``content`` on stdout as it came (a CSV download)."""
    sys.stdout.buffer.write(content)
    sys.stdout.buffer.flush()
