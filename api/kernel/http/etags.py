"""Conditional reads (README "Performance"): an ``ETag`` on a JSON body, and ``304 Not Modified``
when the client already holds that body (RFC 9110 §8.8.3 entity tags, §13.1.2 ``If-None-Match``).

The validator is a hash of the body as built, not a version stamp stored per account. A hash
is right by construction: whatever changes what the client would see (a rename, a metering
batch, a user added, a webhook changing the card, a new billing cycle starting) changes the
body and so the tag, with no write path to remember. A stamp would spare building the body on
a match, but every write that touches the view (metering, users, SSO, billing, Stripe webhooks,
and the calendar, for the cycles) would have to bump it, and one forgotten bump serves stale
data. Building the body is one database round trip (``GET /web/account``) or none beyond the
caller lookup (``GET /web/session``), and hashing a few kilobytes costs a microsecond or two,
so a 304 saves the transfer and the client's parsing and rendering, which is the point.

These responses carry the API key or the user's details, so they stay ``Cache-Control:
no-store`` (api/kernel/http/security_headers.py): no cache keeps them. The SPA keeps the tag in
memory with the data it already holds and sends ``If-None-Match`` itself
(web/src/api/conditional.ts).
"""

from __future__ import annotations

from base64 import urlsafe_b64encode
from hashlib import blake2b
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

# What a route answering conditional GETs adds to its declaration (openapi.json): the 304 in
# ``responses=``, the request header in ``openapi_extra=``. The header is read from the
# request (:func:`conditional_json`) rather than declared as a FastAPI ``Header`` parameter:
# FastAPI validates declared parameters on every request, which cost a noticeable share of
# ``GET /web/session`` (bench/api.py with --profile).
_ETAG_HEADER = {
    "ETag": {
        "description": "The body's entity tag, to send back in If-None-Match.",
        "required": True,
        "schema": {"type": "string"},
    }
}
CONDITIONAL_GET_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"headers": _ETAG_HEADER},
    304: {
        "description": (
            "Not Modified: the body would be the one whose ETag the request's If-None-Match "
            "names; reuse it. No body."
        ),
        "headers": _ETAG_HEADER,
    },
}
IF_NONE_MATCH_PARAMETER: dict[str, Any] = {
    "parameters": [
        {
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "schema": {"type": "string"},
            "description": (
                "The ETag of the response the client already holds: an unchanged body is "
                "answered 304 with no body."
            ),
        }
    ]
}

_JSON = "application/json"


def etag_of(body: bytes) -> str:
    """A strong entity tag for ``body``: the quoted URL-safe base64 of its 128-bit BLAKE2b
    digest, e.g. ``"q3ZkDk0eS5bD0n6XxAcDUw"`` (24 characters with the quotes)."""
    digest = blake2b(body, digest_size=16).digest()
    return '"' + urlsafe_b64encode(digest).rstrip(b"=").decode("ascii") + '"'


def none_match(if_none_match: str | None, etag: str) -> bool:
    """True when ``If-None-Match`` does NOT name ``etag``, i.e. the full body must be sent.

    ``if_none_match`` is the header's value (None when absent): ``*`` or a comma-separated
    list of entity tags, weak (``W/"..."``) or strong, compared weakly as RFC 9110 §13.1.2
    requires (the ``W/`` prefix is ignored on both sides).
    """
    if if_none_match is None:
        return True
    wanted = etag.removeprefix("W/")
    for candidate in if_none_match.split(","):
        tag = candidate.strip()
        if tag == "*" or tag.removeprefix("W/") == wanted:
            return False
    return True


def conditional_json(body: bytes, request: Request) -> Response:
    """``body`` (UTF-8 JSON already serialised) as a 200 with its ``ETag``, or a 304 with the
    same ``ETag`` and no body when the request's ``If-None-Match`` names it."""
    etag = etag_of(body)
    if none_match(request.headers.get("if-none-match"), etag):
        return Response(body, media_type=_JSON, headers={"etag": etag})
    return Response(status_code=304, headers={"etag": etag})
