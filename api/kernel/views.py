"""What the read models share (docs/contributors/code-layout.md "Read models"): a domain's
view names the columns its mapper reads once, and both its own queries and the statement that
composes ``GET /web/account`` select them by that list; the mapper builds the wire JSON as
plain dicts, which :func:`wire_json` writes as ``ApiModel`` would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

_OPTIONS = orjson.OPT_UTC_Z


def select_list(alias: str, columns: Sequence[str]) -> str:
    """SQL selecting ``columns`` (column names, constant text) of the row aliased ``alias``,
    in that order."""
    return ", ".join(f"{alias}.{column}" for column in columns)


def values_of(row: object, columns: Sequence[str]) -> tuple[Any, ...]:
    """The values of ``columns`` of a loaded row (an ORM object), in that order: what
    :func:`select_list` selects, for a mapper that reads either."""
    return tuple(getattr(row, column) for column in columns)


def wire_json(body: object) -> bytes:
    """``body`` (dicts, lists, str, int, bool, None, aware datetimes) as UTF-8 JSON, datetimes
    as ``ApiModel`` writes them: UTC as ``Z``, microseconds only when not zero
    (``2026-11-21T10:15:30Z``, ``2026-11-21T10:15:30.250000Z``).

    Raises:
        TypeError: a value orjson cannot write (``orjson.JSONEncodeError``), such as a UUID
            subclass: views write ids as ``str``.
    """
    return orjson.dumps(body, option=_OPTIONS)
