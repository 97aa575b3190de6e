"""Every request the Cognito adapter sends, checked against Cognito's own service model.

moto (the stand-in of the tests) accepts requests the real service refuses: a username with a
space, more than 50 ``IdpIdentifiers``, a 129-character username where Cognito allows 128. This
module checks each request against botocore's model of ``cognito-idp`` (the ``service-2.json``
that ships with the installed botocore, the definition AWS publishes for its SDKs):

- what botocore's own ``ParamValidator`` checks: required members, unknown members, types,
  the ``min`` of string lengths, list sizes and numbers;
- what it leaves to the service, checked here: the ``max`` of string lengths, list and map
  sizes and numbers, the ``min`` of map sizes, ``enum`` values and ``pattern``. A pattern must
  match the whole value (the service's message for a username with a space is "Member must
  satisfy regular expression pattern: [\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+"). The patterns are
  Java regular expressions, translated by :func:`java_pattern`.

:class:`CognitoModelCheck` is the check: ``tests/api/conftest.py`` gives every
``CognitoClient`` built during the API tests its :meth:`CognitoModelCheck.on_request` hook,
which raises :class:`CognitoModelViolation` at the call and records it, and fails the test
that made the call with whatever was recorded (a broad ``except`` in the product cannot
swallow it).
"""

from __future__ import annotations

import functools
import json
import traceback
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import botocore.session
import httpx
import regex
from botocore.model import OperationNotFoundError, ServiceModel, Shape
from botocore.validate import ParamValidator

_TARGET_PREFIX = "AWSCognitoIdentityProviderService."
_API = Path(__file__).resolve().parents[2] / "api"
_ADAPTERS = _API / "adapters"

# Java's predefined classes are ASCII-only (java.util.regex.Pattern without
# UNICODE_CHARACTER_CLASS), where Python's are Unicode: \w is [a-zA-Z_0-9], \s is
# [ \t\n\x0B\f\r].
_JAVA_CLASSES = {"w": "a-zA-Z0-9_", "d": "0-9", "s": " \\t\\n\\x0B\\f\\r"}
_JAVA_NEGATED = {"W": "w", "D": "d", "S": "s"}
# Java's "." stops at every line terminator, Python's at \n only.
_JAVA_DOT = "[^\\n\\r\\x85\\u2028\\u2029]"
# Escapes whose meaning differs between Java and the regex module, or which it lacks: refused
# rather than guessed (none occurs in the model today; a botocore upgrade adding one fails
# the unit test that compiles every pattern).
_UNSUPPORTED_ESCAPES = set("QEhHvVRXzZGbBk")


class CognitoModelViolation(AssertionError):
    """A request the real Cognito would refuse. ``violations``: one line each,
    ``<Operation> <member path>: <constraint>``."""

    def __init__(self, violations: list[str]) -> None:
        super().__init__(
            "Cognito would refuse this request (botocore's cognito-idp model):\n  "
            + "\n  ".join(violations)
        )
        self.violations = violations


@functools.cache
def java_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile one of the model's patterns (Java ``java.util.regex`` syntax) with the same
    meaning for the regex module; match with ``fullmatch``, as the service does.

    Translated: ``\\w \\d \\s`` and their negations (ASCII in Java), ``.`` (stops at
    every Java line terminator) and a leading ``(?s)``. Unicode categories (``\\p{L}``...)
    mean the same in both. Raises ValueError for a construct whose meaning differs and that
    is not translated (nested or intersected classes, ``\\Q``, ``\\h``, inline flags,
    ``\\p{Alpha}``-style POSIX classes, which are ASCII in Java).
    """
    flags = regex.V0
    dotall = pattern.startswith("(?s)")
    if dotall:
        flags |= regex.DOTALL
    text = pattern[4:] if dotall else pattern
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            if i + 1 >= len(text):
                raise ValueError(f"dangling backslash in {pattern!r}")
            escape = text[i + 1]
            if escape in _JAVA_CLASSES:
                body = _JAVA_CLASSES[escape]
                out.append(body if in_class else f"[{body}]")
            elif escape in _JAVA_NEGATED:
                body = _JAVA_CLASSES[_JAVA_NEGATED[escape]]
                if not in_class:
                    out.append(f"[^{body}]")
                elif out[-1] == "[" and text[i + 2 : i + 3] == "]":
                    # A class holding only the negation ([\S]): the negated class itself.
                    out[-1] = f"[^{body}"
                else:
                    raise ValueError(f"a negated class inside a class in {pattern!r}")
            elif escape in "pP":
                end = text.find("}", i)
                name = text[i + 3 : end] if text[i + 2 : i + 3] == "{" and end > 0 else ""
                if not regex.fullmatch(r"[A-Z][a-z]?", name):
                    raise ValueError(f"only general categories like \\p{{L}} in {pattern!r}")
                out.append(text[i : end + 1])
                i = end + 1
                continue
            elif escape in _UNSUPPORTED_ESCAPES or escape.isdigit():
                raise ValueError(f"\\{escape} is not translated, in {pattern!r}")
            else:
                out.append(text[i : i + 2])
            i += 2
            continue
        if in_class:
            if char == "[" or text.startswith("&&", i):
                raise ValueError(f"nested or intersected classes in {pattern!r}")
            if char == "]" and out[-1] not in ("[", "[^"):
                in_class = False
        elif char == "[":
            in_class = True
            if text.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
        elif char == "." and not dotall:
            out.append(_JAVA_DOT)
            i += 1
            continue
        elif char == "(" and text.startswith("(?", i) and not text.startswith("(?:", i):
            raise ValueError(f"inline flags or look-arounds are not translated, in {pattern!r}")
        out.append(char)
        i += 1
    if in_class:
        raise ValueError(f"unterminated class in {pattern!r}")
    return regex.compile("".join(out), flags)


class CognitoModelCheck:
    """Checks Cognito requests against botocore's ``cognito-idp`` service model and keeps
    what it found until :meth:`take`."""

    def __init__(self) -> None:
        self._found: list[str] = []

    @functools.cached_property
    def model(self) -> ServiceModel:
        """botocore's ``cognito-idp`` model (loaded on first use)."""
        return botocore.session.get_session().get_service_model("cognito-idp")

    def violations(self, operation: str, params: Any) -> list[str]:
        """What the service would refuse in ``params`` (the decoded JSON body) of
        ``operation``: one line each, ``<operation> <member path>: <constraint>``; empty
        when the request is valid. Values of members the model marks sensitive (passwords,
        tokens) are never written out."""
        try:
            shape = self.model.operation_model(operation).input_shape
        except OperationNotFoundError:
            return [f"{operation}: not an operation of cognito-idp"]
        report = ParamValidator().validate(params, shape)
        found = [
            f"{operation} {line}"
            for line in (report.generate_report().splitlines() if report.has_errors() else [])
        ]
        self._walk(
            params, shape, "", lambda path, text: found.append(f"{operation} {path}: {text}")
        )
        return found

    def _walk(
        self, value: Any, shape: Shape, path: str, report: Callable[[str, str], None]
    ) -> None:
        meta = shape.metadata
        kind = shape.type_name
        if kind == "structure" and isinstance(value, dict):
            for name, member in shape.members.items():
                if name in value:
                    self._walk(value[name], member, f"{path}.{name}" if path else name, report)
        elif kind == "list" and isinstance(value, list):
            if "max" in meta and len(value) > meta["max"]:
                report(path, f"{len(value)} items, more than the max of {meta['max']}")
            for index, item in enumerate(value):
                self._walk(item, shape.member, f"{path}[{index}]", report)
        elif kind == "map" and isinstance(value, dict):
            if "max" in meta and len(value) > meta["max"]:
                report(path, f"{len(value)} entries, more than the max of {meta['max']}")
            if "min" in meta and len(value) < meta["min"]:
                report(path, f"{len(value)} entries, fewer than the min of {meta['min']}")
            for key, item in value.items():
                self._walk(key, shape.key, f"{path} (key {key!r})", report)
                self._walk(item, shape.value, f"{path}.{key}", report)
        elif kind == "string" and isinstance(value, str):
            self._check_string(value, shape, path, report)
        elif (
            kind in ("integer", "long", "float", "double")
            and isinstance(value, int | float)
            and value > meta.get("max", value)
        ):
            report(path, f"{value} is above the max of {meta['max']}")

    def _check_string(
        self, value: str, shape: Shape, path: str, report: Callable[[str, str], None]
    ) -> None:
        meta = shape.metadata
        shown = (
            f"(a sensitive value of {len(value)} characters)"
            if meta.get("sensitive")
            else repr(value if len(value) <= 80 else value[:77] + "...")
        )
        if "max" in meta and len(value) > meta["max"]:
            report(path, f"length {len(value)}, more than the max of {meta['max']}: {shown}")
        enum = shape.enum
        if enum and value not in enum:
            report(path, f"{shown} is not one of the enum {enum}")
        pattern = meta.get("pattern")
        if pattern is not None and java_pattern(pattern).fullmatch(value) is None:
            where = _first_mismatch(
                java_pattern(pattern), value, sensitive=bool(meta.get("sensitive"))
            )
            report(path, f"{shown} does not match the pattern {pattern}{where}")

    def request_violations(self, request: httpx.Request) -> list[str]:
        """:meth:`violations` of an adapter's HTTP request; empty for what is not a call of
        the Cognito API (the JWKS, the hosted UI's token endpoint)."""
        target = request.headers.get("x-amz-target", "")
        if request.method != "POST" or not target.startswith(_TARGET_PREFIX):
            return []
        operation = target.removeprefix(_TARGET_PREFIX)
        try:
            params = json.loads(request.content or b"")
        except ValueError:
            return [f"{operation}: the body is not JSON"]
        return self.violations(operation, params)

    async def on_request(self, request: httpx.Request) -> None:
        """The httpx request hook: raise :class:`CognitoModelViolation` (naming the product
        code that made the call) and keep the violations for :meth:`take`."""
        found = self.request_violations(request)
        if not found:
            return
        caller = _caller()
        found = [f"{line} (called from {caller})" for line in found]
        self._found.extend(found)
        raise CognitoModelViolation(found)

    def take(self) -> list[str]:
        """The violations found since the last call (and forget them)."""
        found, self._found = self._found, []
        return found

    def checking(self, init: Callable[..., None]) -> Callable[..., None]:
        """``CognitoClient.__init__`` with :meth:`on_request` added to the request hooks it
        is given (the mailbox of the dev stack keeps its own)."""

        @functools.wraps(init)
        def checked_init(
            client: Any, *args: Any, event_hooks: dict[str, list[Any]] | None = None, **kwargs: Any
        ) -> None:
            hooks = {name: list(hooks) for name, hooks in (event_hooks or {}).items()}
            hooks.setdefault("request", []).append(self.on_request)
            init(client, *args, event_hooks=hooks, **kwargs)

        return checked_init


def _first_mismatch(pattern: regex.Pattern[str], value: str, *, sensitive: bool) -> str:
    """Where ``value`` stops being a possible start of a match (the regex module's partial
    matching), e.g. ``", from index 3 (U+0020)"``; a sensitive value shows the character's
    Unicode category only. Empty when every prefix could still match (the value ends early)."""
    for index in range(len(value)):
        if pattern.fullmatch(value[: index + 1], partial=True) is None:
            char = value[index]
            what = f"category {unicodedata.category(char)}" if sensitive else f"U+{ord(char):04X}"
            return f", from index {index} ({what})"
    return ""


def _caller() -> str:
    """The innermost frame of the product (``api/`` outside the adapters) on the stack."""
    for frame in reversed(traceback.extract_stack()):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(_API) and not path.is_relative_to(_ADAPTERS):
            return f"{path.relative_to(_API.parent)}:{frame.lineno} in {frame.name}"
    return "outside api/"
