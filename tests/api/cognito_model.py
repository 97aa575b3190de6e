"""Every request the Cognito adapter sends in the API tests is checked against Cognito's own
service model (botocore's ``cognito-idp``, the model the AWS SDKs are generated from), as the
real service checks it (README "Tests"): required members, types, string lengths, patterns and
enums, list and map sizes and number ranges, the ``max`` constraints included, which
botocore's own client-side validation skips. moto accepts much the service refuses (an
``IdpIdentifiers`` list of 60 domains of 250 characters, say), so without this a product bug
that real Cognito would refuse passes every test.

A request that breaks a constraint is answered as Cognito answers it: ``InvalidParameterException``
('1 validation error detected: Value ... at 'idpIdentifiers.1.member' failed to satisfy
constraint: Member must have length less than or equal to 40'), raised by the adapter as a
:class:`~api.adapters.cognito.CognitoError` before anything reaches moto.

Patterns are matched whole, with the ``regex`` module: the model's patterns are Java regular
expressions (``\\p{L}`` and the like, which Python's ``re`` lacks). Lengths count UTF-16 code
units, as Java strings do.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import botocore.session
import regex
from botocore.model import ListShape, MapShape, Shape, StringShape, StructureShape


@functools.cache
def _model() -> Any:
    return botocore.session.get_session().get_service_model("cognito-idp")


@functools.cache
def _pattern(pattern: str) -> Any:
    return regex.compile(pattern)


def _utf16_length(value: str) -> int:
    return len(value.encode("utf-16-le")) // 2


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _problems(shape: Shape, value: Any, where: str) -> Iterator[str]:
    """What is wrong with ``value`` as ``shape`` (nothing when it is fine)."""
    meta = shape.metadata
    if isinstance(shape, StructureShape):
        if not isinstance(value, dict):
            yield f"Value at '{where}' failed to satisfy constraint: Member must be a structure"
            return
        for required in shape.required_members:
            if value.get(required) is None:
                at = f"{where}.{_camel(required)}" if where else _camel(required)
                yield f"Value null at '{at}' failed to satisfy constraint: Member must not be null"
        for name, member in value.items():
            at = f"{where}.{_camel(name)}" if where else _camel(name)
            if name not in shape.members:
                yield f"Unknown member '{at}'"
            elif member is not None:
                yield from _problems(shape.members[name], member, at)
        return
    if isinstance(shape, ListShape):
        if not isinstance(value, list):
            yield f"Value at '{where}' failed to satisfy constraint: Member must be a list"
            return
        yield from _size(meta, len(value), value, where, "length")
        for index, item in enumerate(value, start=1):
            yield from _problems(shape.member, item, f"{where}.{index}.member")
        return
    if isinstance(shape, MapShape):
        if not isinstance(value, dict):
            yield f"Value at '{where}' failed to satisfy constraint: Member must be a map"
            return
        yield from _size(meta, len(value), value, where, "length")
        for key, item in value.items():
            yield from _problems(shape.key, key, f"{where}.{key}.key")
            yield from _problems(shape.value, item, f"{where}.{key}.value")
        return
    if isinstance(shape, StringShape) or shape.type_name == "string":
        if not isinstance(value, str):
            yield f"Value at '{where}' failed to satisfy constraint: Member must be a string"
            return
        yield from _size(meta, _utf16_length(value), value, where, "length")
        enum = getattr(shape, "enum", None)
        if enum and value not in enum:
            yield (
                f"Value '{value}' at '{where}' failed to satisfy constraint: Member must satisfy "
                f"enum value set: [{', '.join(enum)}]"
            )
        if "pattern" in meta and not _pattern(meta["pattern"]).fullmatch(value):
            yield (
                f"Value '{value}' at '{where}' failed to satisfy constraint: Member must satisfy "
                f"regular expression pattern: {meta['pattern']}"
            )
        return
    if shape.type_name in ("integer", "long"):
        if not isinstance(value, int) or isinstance(value, bool):
            yield f"Value at '{where}' failed to satisfy constraint: Member must be a number"
            return
        yield from _size(meta, value, value, where, "value")
        return
    if shape.type_name == "boolean" and not isinstance(value, bool):
        yield f"Value at '{where}' failed to satisfy constraint: Member must be a boolean"


def _size(meta: dict[str, Any], size: int, value: Any, where: str, what: str) -> Iterator[str]:
    shown = value if isinstance(value, str | int) else f"{type(value).__name__} of {size}"
    if "min" in meta and size < meta["min"]:
        yield (
            f"Value '{shown}' at '{where}' failed to satisfy constraint: Member must have "
            f"{what} greater than or equal to {meta['min']}"
        )
    if "max" in meta and size > meta["max"]:
        yield (
            f"Value '{shown}' at '{where}' failed to satisfy constraint: Member must have "
            f"{what} less than or equal to {meta['max']}"
        )


def validation_errors(operation: str, request: dict[str, Any]) -> list[str]:
    """What Cognito's model says is wrong with ``request`` to ``operation`` (empty: valid).

    Raises: botocore's OperationNotFoundError for an operation Cognito does not have.
    """
    shape = _model().operation_model(operation).input_shape
    return [] if shape is None else list(_problems(shape, request, ""))


def refusal(errors: list[str]) -> str:
    """Cognito's message for ``errors`` (an ``InvalidParameterException``'s)."""
    count = len(errors)
    return f"{count} validation error{'s' if count > 1 else ''} detected: " + "; ".join(errors)
