"""Usage over a range, ``GET /web/usage`` (docs/integrators/usage-api.md): one query, read
page after page, as the contract's JSON or as the console's CSV.

The generated operation parses every 200 answer as JSON, so a CSV page is requested with the
operation's own request (its query parameters as the contract spells them) and an
``Accept: text/csv`` header, and only its error answers go through the operation's parser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from console_cli.console import Console
from console_cli.errors import api_error, expect
from console_cli.generated.api.usage import get_usage
from console_cli.generated.models import ErrorOutsideRetention, Granularity, UsageResponse
from console_cli.generated.types import UNSET, Response, Unset

MAX_PAGE = 1000
"""The contract's maximum of ``limit``: the fewest requests for a range."""

CSV = "text/csv"
LABEL_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
"""A label's name (docs/integrators/metering.md): checked here, so that a misspelt one is the
command line's error rather than the contract's pattern quoted back by the console."""
BAD_LABEL_NAME = "a label name is 1 to 32 lowercase letters, digits or underscores, from a letter"


@dataclass(frozen=True)
class Query:
    """What ``GET /web/usage`` is asked: buckets of ``granularity`` over ``[start, end)`` (None:
    left to the console), grouped by ``group_by`` (``apiKey``, ``label:<name>`` or None),
    ``limit`` buckets a page. ``start_is_ours``: the command chose ``start``, the user did
    not (see :func:`pages`)."""

    granularity: Granularity
    start: datetime | None = None
    end: datetime | None = None
    group_by: str | None = None
    limit: int = MAX_PAGE
    start_is_ours: bool = False

    def parameters(self, cursor: str | Unset) -> dict[str, Any]:
        """The operation's keyword arguments for the page at ``cursor``."""
        return {
            "granularity": self.granularity,
            "from_": UNSET if self.start is None else self.start,
            "to": UNSET if self.end is None else self.end,
            "group_by": UNSET if self.group_by is None else self.group_by,
            "limit": self.limit,
            "cursor": cursor,
        }


def pages(console: Console, query: Query) -> Iterator[UsageResponse]:
    """Every page of ``query`` as the contract's ``UsageResponse``, the first page first; an
    error answer raises its :class:`~console_cli.errors.CliError`."""
    cursor: str | Unset = UNSET
    while True:
        answer = get_usage.sync_detailed(client=console.client, **query.parameters(cursor))
        if isinstance(cursor, Unset) and (moved := _within_retention(query, answer)):
            query = moved
            continue
        page = expect(answer, UsageResponse)
        yield page
        if not isinstance(page.next_cursor, str):
            return
        cursor = page.next_cursor


def csv_pages(console: Console, query: Query) -> Iterator[bytes]:
    """Every page of ``query`` as the console's CSV, as it came (each page starts with the
    header line); an error answer raises its :class:`~console_cli.errors.CliError`. The next
    page is the one the answer's ``Link: <...&cursor=...>; rel="next"`` names."""
    client = console.client
    cursor: str | Unset = UNSET
    while True:
        request = get_usage._get_kwargs(**query.parameters(cursor))
        request["headers"] = {**request.get("headers", {}), "Accept": CSV}
        response = client.get_httpx_client().request(**request)
        if response.status_code >= 400:
            answer = get_usage._build_response(client=client, response=response)
            if isinstance(cursor, Unset) and (moved := _within_retention(query, answer)):
                query = moved
                continue
            raise api_error(answer)
        yield response.content
        following = _cursor_of(response.links.get("next", {}).get("url"))
        if following is None:
            return
        cursor = following


def _within_retention(query: Query, answer: Response[Any]) -> Query | None:
    """``query`` again from the start of the usage kept, when the console refused a start the
    command chose as before it (``OutsideRetention``: an account younger than the default
    range); None otherwise, for the answer to stand. A start or an end the user gave is
    never moved: the refusal is theirs to read."""
    refusal = answer.parsed
    if not (query.start_is_ours and isinstance(refusal, ErrorOutsideRetention)):
        return None
    if query.start is None or query.start >= refusal.earliest:
        return None
    if query.end is not None and query.end <= refusal.earliest:
        return None
    return replace(query, start=refusal.earliest, start_is_ours=False)


def _cursor_of(link: str | None) -> str | None:
    """The ``cursor`` of the next page's address, None without one."""
    if not link:
        return None
    cursors = parse_qs(urlsplit(link).query).get("cursor")
    return cursors[0] if cursors else None
