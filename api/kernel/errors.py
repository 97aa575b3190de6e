"""One error envelope for every error the API returns.

Every non-2xx response body is ``{"code": "<StableCode>", "message": "<human message>"}``;
request validation failures add ``fields: [{"field", "message"}]``. The code is the error
class name, so the SPA switches on it instead of parsing prose (STYLE: polar's typed errors).
Routers list the errors they can raise in ``responses=`` via :func:`error_responses`.

This module holds the envelope, the base class, the handlers and the errors more than one
domain answers with (the generic HTTP ones, the identity provider's refusals, the platform's
503s and 413). An error of one domain lives beside it, in ``api/<domain>/errors.py``.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, ClassVar, Literal, Union, cast

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, create_model
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.kernel.http.http_methods import allowed_methods

log = structlog.get_logger(__name__)


class ErrorBody(BaseModel):
    """The wire shape of every error."""

    code: str
    message: str


class FieldError(BaseModel):
    """One invalid field of a request."""

    field: str
    message: str


class ValidationErrorBody(ErrorBody):
    """422 body: the first problem in ``message``, all of them in ``fields``."""

    fields: list[FieldError]


class AppError(Exception):
    """Base of all domain errors. Subclasses set ``status_code`` and a default message."""

    status_code: ClassVar[int] = 400
    default_message: ClassVar[str] = "Bad request"
    # The body's schema in openapi.json: the envelope, or a subclass of it naming the fields
    # that :attr:`details` adds.
    body_model: ClassVar[type[ErrorBody]] = ErrorBody
    # Errors that any route able to answer this one can answer too: ``error_responses``
    # declares them with it.
    declared_with: ClassVar[tuple[type[AppError], ...]] = ()

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)

    @property
    def code(self) -> str:
        """The stable wire code: the class name."""
        return type(self).__name__

    @property
    def headers(self) -> dict[str, str] | None:
        """Response headers the error carries (none unless a subclass says so)."""
        return None

    @property
    def details(self) -> dict[str, Any]:
        """Fields the body carries beside ``code`` and ``message``, as JSON values (those of
        :attr:`body_model`; none unless a subclass says so)."""
        return {}

    @classmethod
    def wire_codes(cls) -> tuple[str, ...]:
        """Every ``code`` this error can carry on the wire (declared per route in openapi.json)."""
        return (cls.__name__,)


class BadRequest(AppError):
    """Generic 400 carrying a message meant for the user (SPEC 8: 400 with a message)."""


# The identity provider's refusals that keep their own code on the wire (Amazon Cognito API
# reference, the errors of InitiateAuth, RespondToAuthChallenge, ForgotPassword,
# ConfirmForgotPassword, AdminCreateUser, AdminSetUserPassword, GlobalSignOut); any other
# refusal is ``ProviderRefused``, with the provider's message.
PROVIDER_CODES = (
    "CodeMismatchException",
    "ExpiredCodeException",
    "InvalidParameterException",
    "InvalidPasswordException",
    "LimitExceededException",
    "NotAuthorizedException",
    "PasswordResetRequiredException",
    "TooManyFailedAttemptsException",
    "TooManyRequestsException",
    "UserNotConfirmedException",
    "UserNotFoundException",
)


class ProviderRefused(AppError):
    """400: the identity provider refused the request; ``message`` is its text (SPEC 8).
    Raised through api/identity/cognito_errors.py by every domain that calls the provider.

    The wire code is the provider's own when it is one of :data:`PROVIDER_CODES` (e.g.
    ``NotAuthorizedException``, so the SPA can react to specific cases), else
    ``ProviderRefused``: the contract lists every code a client can see.
    """

    def __init__(self, message: str, provider_code: str) -> None:
        super().__init__(message)
        self.provider_code = provider_code if provider_code in PROVIDER_CODES else None

    @property
    def code(self) -> str:
        """The provider's error code, or ``ProviderRefused``."""
        return self.provider_code or type(self).__name__

    @classmethod
    def wire_codes(cls) -> tuple[str, ...]:
        """The provider's codes and ``ProviderRefused``."""
        return (*PROVIDER_CODES, cls.__name__)


class WrongCredential(AppError):
    """400: a secret the user typed to sign in is wrong and only the console can tell (a
    two-step sign-in recovery code). The sign-in limits count it as a failed attempt, as a
    password Cognito refuses (api/kernel/ratelimit)."""


class EmailInUse(AppError):
    """409: a user with this email exists already (SPEC 8 "Registration"); registration,
    joining with a federated identity and invitations answer it."""

    status_code = 409
    default_message = "This email address is already in use"


class NotFound(AppError):
    """404: the resource does not exist in the caller's account."""

    status_code = 404
    default_message = "Not found"


class Conflict(AppError):
    """409: the request conflicts with existing data."""

    status_code = 409
    default_message = "Conflict"


class RateLimited(AppError):
    """429: too many attempts; try again later. ``Retry-After`` (seconds) says when the
    limit's window ends."""

    status_code = 429
    default_message = "Too many attempts. Please wait a few minutes and try again."

    def __init__(self, message: str | None = None, *, retry_after_s: int = 60) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s

    @property
    def headers(self) -> dict[str, str]:
        """``Retry-After``: whole seconds until the limit's window ends."""
        return {"Retry-After": str(self.retry_after_s)}


class PayloadTooLarge(AppError):
    """413: the request body is larger than the route accepts (64 KiB on /web/*, 1 MiB for a
    metering batch, 512 KiB for a Stripe webhook); refused before it is read in full."""

    status_code = 413
    default_message = "The request body is too large"


class DatabaseUnavailable(AppError):
    """503: PostgreSQL could not be reached or dropped the connection
    (api/kernel/http/db_faults.py); a
    write was not kept. Any route that touches the database may answer it."""

    status_code = 503
    default_message = "The database is not reachable right now. Please try again shortly."


class VendorUnavailable(AppError):
    """503: an identity or payment provider could not be reached; nothing was changed."""

    status_code = 503
    default_message = "A provider we depend on is unreachable. Please try again shortly."


class RequestValidationFailed(AppError):
    """Marker for the OpenAPI docs of 422 responses (rendered by the validation handler)."""

    status_code = 422
    default_message = "The request is not valid"

    @classmethod
    def wire_codes(cls) -> tuple[str, ...]:
        """What the validation handler answers with."""
        return ("ValidationError",)


def error_responses(
    *errors: type[AppError], database: bool = True
) -> dict[int | str, dict[str, Any]]:
    """Build a route's ``responses=`` mapping for the given error classes, plus
    ``DatabaseUnavailable``, which any route that touches the database may answer (unless
    ``database=False``), and ``PayloadTooLarge`` where the route reads input, and each error's
    ``declared_with``.

    Each code is one named schema, ``Error_<code>`` (``code`` a constant), shared by every
    route that answers it; a status with several codes is their ``oneOf``, told apart by
    ``code``. So clients (and the generated TypeScript types) switch on typed codes, client
    generators see each error once, and the fuzzer fails on any code the contract does not
    list.

    Returns:
        ``{status_code: {"description": "CodeA | CodeB", "model": ..., ...}}``.
    """
    every: tuple[type[AppError], ...] = (
        *errors,
        *(implied for err in errors for implied in err.declared_with),
        *((DatabaseUnavailable,) if database else ()),
    )
    if RequestValidationFailed in errors:  # the route reads input, so its body is limited
        every = (*every, PayloadTooLarge)
    by_status: dict[int, dict[str, type[ErrorBody]]] = {}
    for err in every:
        by_status.setdefault(err.status_code, {}).update(
            dict.fromkeys(err.wire_codes(), err.body_model)
        )
    return {
        status: {
            "description": " | ".join(sorted(codes)),
            "model": _status_body(status, tuple(sorted(codes.items()))),
            **({"headers": RETRY_AFTER_HEADER} if status == RateLimited.status_code else {}),
        }
        for status, codes in sorted(by_status.items())
    }


def declare_in_document(
    document: dict[str, Any], operation: dict[str, Any], *errors: type[AppError]
) -> None:
    """Declare ``errors`` on ``operation`` of the built OpenAPI ``document`` as
    :func:`error_responses` would have: each code's ``Error_<code>`` component (added when
    missing), a status's codes as their ``oneOf`` told apart by ``code``, the description
    listing them. For what the app adds to many operations at once after they are built (how
    access tokens are received, api/principal/dependencies.py)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    responses = operation.setdefault("responses", {})
    for err in errors:
        for code in err.wire_codes():
            name = f"Error_{code}"
            if name not in schemas:
                model = _error_schema(err.status_code, code, err.body_model)
                schemas[name] = model.model_json_schema(ref_template="#/components/schemas/{model}")
            status = str(err.status_code)
            response = responses.setdefault(
                status, {"description": "", "content": {"application/json": {"schema": {}}}}
            )
            if err.status_code == RateLimited.status_code:
                response.setdefault("headers", RETRY_AFTER_HEADER)
            body = response["content"]["application/json"]
            refs = (
                [body["schema"]["$ref"]]
                if "$ref" in body["schema"]
                else [one["$ref"] for one in body["schema"].get("oneOf", [])]
            )
            refs = sorted({*refs, f"#/components/schemas/{name}"})
            codes = [ref.rsplit("/", 1)[1].removeprefix("Error_") for ref in refs]
            response["description"] = " | ".join(codes)
            body["schema"] = (
                {"$ref": refs[0]}
                if len(refs) == 1
                else {
                    "oneOf": [{"$ref": ref} for ref in refs],
                    "discriminator": {
                        "propertyName": "code",
                        "mapping": dict(zip(codes, refs, strict=True)),
                    },
                }
            )


# Every 429 comes from a limit with a window (api/kernel/ratelimit; a billing cycle for the spend
# limits of the metering intake), whose end it names.
RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": (
            "Seconds until the limit's window (for a spend limit, the billing cycle) ends and "
            "the request may be sent again."
        ),
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}


@functools.cache
def _error_schema(status: int, code: str, body: type[ErrorBody]) -> type[BaseModel]:
    """The body of error ``code``: ``body`` (``ValidationErrorBody`` for 422) with ``code`` the
    constant ``code``, as the component ``Error_<code>``. Cached: one class per code, so
    FastAPI names the component once however many routes answer it."""
    base: type[ErrorBody] = ValidationErrorBody if status == 422 else body
    # The code as a one-value Literal: JSON Schema's ``const``, which generators type as a
    # literal rather than an enum class of their own per route.
    constant: Any = cast(Any, Literal)[code]
    return create_model(
        f"Error_{code}",
        __base__=base,
        __doc__=f"The error `{code}` (HTTP {status}).",
        code=(constant, ...),
    )


def _status_body(status: int, codes: tuple[tuple[str, type[ErrorBody]], ...]) -> Any:
    """The schema of a status's body, from its (code, body model) pairs: the one code's, or the
    ``oneOf`` of the codes' schemas with ``code`` as the discriminator."""
    schemas = tuple(_error_schema(status, code, body) for code, body in codes)
    if len(schemas) == 1:
        return schemas[0]
    return Annotated[Union[schemas], Field(discriminator="code")]  # noqa: UP007


def _envelope(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    return JSONResponse(
        {"code": code, "message": message, **extra}, status_code=status, headers=headers
    )


def error_response(error: type[AppError], headers: dict[str, str] | None = None) -> JSONResponse:
    """The envelope of ``error`` with its default message, for pure ASGI middleware that
    answers before (or instead of) the app: ``await error_response(...)(scope, receive, send)``."""
    return _envelope(error.status_code, error.__name__, error.default_message, headers=headers)


async def _app_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    return _envelope(exc.status_code, exc.code, exc.message, headers=exc.headers, **exc.details)


MALFORMED_BODY = "The request body is not valid JSON"


def _field_error(err: Any) -> dict[str, str]:
    if err["type"] == "json_invalid":  # loc is ("body", <character offset>)
        return {"field": "body", "message": MALFORMED_BODY}
    return {
        "field": ".".join(str(p) for p in err["loc"] if p not in ("body", "query", "path")),
        "message": str(err["msg"]).removeprefix("Value error, "),
    }


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    fields = [_field_error(err) for err in exc.errors()]
    message = fields[0]["message"] if fields else "Invalid request"
    return _envelope(422, "ValidationError", message, fields=fields)


_HTTP_CODES = {404: "NotFound", 405: "MethodNotAllowed", 401: "NotAuthenticated"}


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:
        # Our code raises AppError, never HTTPException: a 400 here is FastAPI failing to read
        # the body ("There was an error parsing the body", e.g. bytes that are not UTF-8).
        # That is a malformed request like any other: the documented 422 envelope.
        body = {"field": "body", "message": MALFORMED_BODY}
        return _envelope(422, "ValidationError", MALFORMED_BODY, fields=[body])
    code = _HTTP_CODES.get(exc.status_code, "HttpError")
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        # Starlette's Allow names only the first matching route's methods (GET and PUT of one
        # path are two routes): list every method of the path, HEAD wherever GET is.
        methods = allowed_methods(request.app.router.routes, request.scope)
        if methods:
            headers["Allow"] = ", ".join(methods)
    return _envelope(exc.status_code, code, str(exc.detail), headers=headers)


async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled_error", exc_info=exc)
    return _envelope(500, "InternalError", "Internal server error")


def install_error_handlers(app: FastAPI) -> None:
    """Render every error, expected or not, as the envelope."""
    app.add_exception_handler(AppError, _app_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
