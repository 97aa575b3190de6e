"""SCIM error responses (RFC 7644 3.12): every refusal of ``/scim/v2`` is a
``urn:ietf:params:scim:api:messages:2.0:Error`` with ``status``, ``detail`` and, where RFC 7644
Table 9 names one, ``scimType``.

Every refusal leaves the route as an exception, so the request's transaction rolls back
whole (a PATCH is all-or-nothing: RFC 7644 3.5.2): the SCIM routes raise :class:`ScimError`,
scim2-models' ``SCIMException`` (which the wire models raise themselves) and FastAPI's body
errors are raised again as one (:func:`as_scim_error`), and the console's own errors
(``AppError``: the SCIM token's refusals, a 429) pass as they are. The app renders each in the
console's envelope, a :class:`ScimError` with its ``scimType`` beside the message, and so is
everything that answers before or around the routes (no such path or method, a body over the
limit, a database that is gone); :class:`ScimErrorsMiddleware` turns those into SCIM errors,
so a SCIM client never sees the ``{"code", "message"}`` envelope.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Literal

import orjson
import structlog
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from scim2_models import Context, Error, SCIMException
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.kernel.errors import RETRY_AFTER_HEADER, AppError

log = structlog.get_logger(__name__)

SCIM_MEDIA_TYPE = "application/scim+json"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"


class ScimError(AppError):
    """A SCIM refusal: ``status_code`` and ``scim_type`` (RFC 7644 Table 9; the class's
    ``default_scim_type`` unless given), or none. The envelope carries the type as
    ``scimType`` for :class:`ScimErrorsMiddleware`."""

    default_scim_type: ClassVar[str | None] = None

    def __init__(self, message: str | None = None, *, scim_type: str | None = None) -> None:
        super().__init__(message)
        self.scim_type = scim_type or self.default_scim_type

    @property
    def details(self) -> dict[str, Any]:
        return {"scimType": self.scim_type} if self.scim_type else {}


class Uniqueness(ScimError):
    """409 ``uniqueness``: a userName or email another user holds."""

    status_code = 409
    default_scim_type = "uniqueness"
    default_message = "One or more of the attribute values are already in use"


class InvalidValue(ScimError):
    """400 ``invalidValue``: a value the console cannot take."""

    default_scim_type = "invalidValue"
    default_message = "A required value was missing, or the value specified was not compatible"


class InvalidFilter(ScimError):
    """400 ``invalidFilter``: a filter the console does not evaluate."""

    default_scim_type = "invalidFilter"
    default_message = "The specified filter syntax was invalid or is not supported"


class Mutability(ScimError):
    """400 ``mutability``: a change the console does not allow (the account's last Owner would
    stop being one)."""

    default_scim_type = "mutability"
    default_message = "The attempted modification is not compatible with the attribute"


class ResourceNotFound(ScimError):
    """404: no such resource in the token's account (another account's is a 404 too)."""

    status_code = 404
    default_message = "Resource not found"


class SearchNotImplemented(ScimError):
    """501: ``POST /.search`` across resource types is not offered (RFC 7644 3.4.3)."""

    status_code = 501
    default_message = "Searching several resource types at once is not supported"


class TooManyScimTokens(AppError):
    """409 (User Management, not the SCIM service): the account holds its most live SCIM
    tokens (``api.identity.directory.tokens.MAX_TOKENS``)."""

    status_code = 409
    default_message = "The account has all the SCIM tokens it may have. Revoke one first."


class ScimErrorBody(BaseModel):
    """The wire shape of a SCIM error (RFC 7644 3.12)."""

    schemas: list[Literal["urn:ietf:params:scim:api:messages:2.0:Error"]]
    status: str = Field(description="The HTTP status code, as a string.")
    scim_type: str | None = Field(default=None, alias="scimType")
    detail: str | None = None


def _error(status: int, detail: str, scim_type: str | None) -> dict[str, Any]:
    error = Error(status=status, scim_type=scim_type, detail=detail)
    return error.model_dump(scim_ctx=Context.DEFAULT)


def _body(status: int, detail: str, scim_type: str | None) -> JSONResponse:
    return ScimResponse(_error(status, detail, scim_type), status_code=status)


@functools.cache
def _refusal(status: int) -> type[ScimError]:
    """The :class:`ScimError` class of an HTTP ``status`` scim2-models reports."""
    return type(f"ScimStatus{status}", (ScimError,), {"status_code": status})


def as_scim_error(exc: Exception) -> Exception:
    """What a SCIM route raises for ``exc``: a ``SCIMException`` as the :class:`ScimError` of
    its status, ``scimType`` and detail; a body that is not JSON as ``invalidSyntax`` and one of
    the wrong shape as ``invalidValue`` (400: RFC 7644 3.12 gives 400 to every malformed
    request); anything else (the console's ``AppError``, a defect) as it is."""
    if isinstance(exc, SCIMException):
        return _refusal(exc.status)(exc.detail, scim_type=exc.scim_type or None)
    if isinstance(exc, HTTPException) and exc.status_code == 400:
        # FastAPI could not read the body (bytes that are not UTF-8 JSON).
        return InvalidValue("The request body is not valid JSON", scim_type="invalidSyntax")
    if isinstance(exc, RequestValidationError):
        first: dict[str, Any] = next(iter(exc.errors()), {})
        where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
        detail = f"{where}: {first.get('msg', 'invalid')}" if where else "The request is invalid"
        return InvalidValue(detail)
    return exc


class ScimErrorsMiddleware:
    """Pure ASGI middleware: an error response under ``prefix`` that is in the console's
    envelope (``application/json`` with a ``message``) is sent as the SCIM error of the same
    status instead (``detail`` = the message; its headers, ``Allow`` and ``Retry-After``
    among them, kept). Other paths pass straight through; only error bodies are buffered,
    and they are a few hundred bytes.

    Place it outside the layers that answer for the app (body limits, the database-fault
    retry) so their answers pass through it. An exception that reaches it before a response
    began (a defect: the database's own faults are answered inside it) is logged and answered
    as a SCIM 500, where the rest of the API answers the envelope's ``InternalError``.
    """

    def __init__(self, app: ASGIApp, *, prefix: str) -> None:
        self.app = app
        self.prefix = prefix.rstrip("/")

    def _covers(self, path: str) -> bool:
        return path == self.prefix or path.startswith(self.prefix + "/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._covers(scope["path"]):
            await self.app(scope, receive, send)
            return
        started = False
        held: Message | None = None  # the start of an envelope error, until its body is in
        chunks: list[bytes] = []

        async def rewriting_send(message: Message) -> None:
            nonlocal started, held
            if message["type"] == "http.response.start":
                started = True
                content_type = MutableHeaders(raw=message["headers"]).get("content-type", "")
                if message["status"] >= 400 and content_type.startswith("application/json"):
                    held = message
                    return
            elif held is not None and message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                start, held = held, None
                await _send_as_scim_error(start, b"".join(chunks), send)
                return
            await send(message)

        try:
            await self.app(scope, receive, rewriting_send)
        except Exception as exc:
            if started:
                raise
            log.exception("unhandled_error", exc_info=exc)
            await _body(500, "Internal server error", None)(scope, receive, send)


async def _send_as_scim_error(start: Message, body: bytes, send: Send) -> None:
    """Send the envelope error ``start`` + ``body`` as a SCIM error, with the envelope's
    ``scimType`` if it has one (as it was when ``body`` is not an envelope, e.g. the empty
    body of a HEAD)."""
    try:
        envelope = orjson.loads(body)
        message = envelope["message"]
        scim_type = envelope.get("scimType")
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        await send(start)
        await send({"type": "http.response.body", "body": body})
        return
    status = start["status"]
    scim_body = orjson.dumps(
        _error(status, str(message), scim_type if isinstance(scim_type, str) else None)
    )
    headers = MutableHeaders(raw=list(start["headers"]))
    headers["content-type"] = SCIM_MEDIA_TYPE
    headers["content-length"] = str(len(scim_body))
    await send({**start, "headers": headers.raw})
    await send({"type": "http.response.body", "body": scim_body})


class ScimResponse(JSONResponse):
    """A JSON response of the SCIM service: ``application/scim+json`` (RFC 7644 3.1)."""

    media_type = SCIM_MEDIA_TYPE


def scim_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """A SCIM route's ``responses=``: each status's body is a SCIM error; ``default`` covers
    any other (a SCIM route never answers the console's 422 envelope)."""
    declared: dict[int | str, dict[str, Any]] = {
        status: {
            "description": _DESCRIPTIONS[status],
            "model": ScimErrorBody,
            **({"headers": RETRY_AFTER_HEADER} if status == 429 else {}),
        }
        for status in sorted(statuses)
    }
    declared["default"] = {"description": "Another SCIM error", "model": ScimErrorBody}
    return declared


_DESCRIPTIONS = {
    400: "invalidValue | invalidFilter | invalidSyntax | mutability | noTarget | invalidPath",
    401: "No SCIM token, a revoked one, or one whose creator is no longer an Owner or Admin",
    403: "The token's authority (its creator's current role) does not allow the change",
    404: "No such resource in the token's account",
    409: "uniqueness",
    413: "The request body is too large",
    429: "Over the account's SCIM requests per minute, or its invitations per hour",
    501: "Not offered",
    503: "The database or a provider is unreachable; nothing was changed",
}
