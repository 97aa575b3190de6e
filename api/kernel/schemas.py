"""Base of every wire schema: camelCase on the wire (SPEC 3 names), snake_case in Python;
and the field types several domains share, so each rule is written once."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from api.kernel.emails import is_valid_email, normalize_email

# An email is a Cognito username (the lowercased email, README "Configuration"), and Cognito's
# usernames are at most 128 characters (UsernameType, Amazon Cognito API reference): a longer
# address could never sign in, and Cognito would refuse to create it (RFC 5321 allows 254).
EMAIL_MAX_LENGTH = 128
NAME_MAX_LENGTH = 100
ACCOUNT_NAME_MAX_LENGTH = 200
ACCOUNT_NAME_REQUIRED = "Account name must not be empty"  # SPEC 5 "Other"
REQUIRED = "Required"  # SPEC 5 Registration: "Every field is required, with the message"


class ApiModel(BaseModel):
    """Request and response bodies of /web/*.

    Patterns are Python regular expressions (``regex_engine="python-re"``), the same engine the
    fuzzer draws examples with, and they are written to mean the same in ECMA-262 (the JSON
    Schema dialect): ``$(?!\\n)`` ends the text in both (Python's ``$`` alone also matches
    before a final newline).
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        from_attributes=True,
        regex_engine="python-re",
    )


def sql_literal(value: str) -> str:
    """``value`` as an SQL string literal (quotes doubled), for the constants of a rule that
    the SQL of a response body repeats (``'Visa'``, ``'Active'``): written once in Python."""
    return "'" + value.replace("'", "''") + "'"


# Text rules every request field follows, declared in openapi.json so integrators and the
# fuzzer know them (README "The contract"). Control characters (C0 and DEL, NUL included) are
# refused: they are never meaningful in a name, an email or a password, and PostgreSQL refuses
# NUL in text.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
NO_CONTROL_CHARACTERS = "Must not contain control characters"
TEXT_PATTERN = r"^[^\x00-\x1f\x7f]*$(?!\n)"
NON_BLANK_PATTERN = r"^[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]*$(?!\n)"


def _no_control_characters(value: str) -> str:
    if CONTROL_CHARACTERS.search(value):
        raise ValueError(NO_CONTROL_CHARACTERS)
    return value


class FieldRule:
    """Base of field metadata that checks a string after its type's own validation and says
    so in the schema: subclasses give :meth:`check` (raise ``ValueError`` with the message to
    show) and :attr:`schema` (JSON Schema keywords stating the same rule)."""

    schema: ClassVar[dict[str, Any]] = {}

    def check(self, value: str) -> str:
        """The value, or ``ValueError`` with the message the form shows."""
        raise NotImplementedError

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema.update(self.schema)
        return json_schema


@dataclass(frozen=True, slots=True)
class Required(FieldRule):
    """The value may not be blank (empty or only white space), refused with ``message`` (the
    form's own SPEC 5 text, e.g. 'Email address is required'). The schema says so with
    ``minLength: 1`` and :data:`NON_BLANK_PATTERN`. Put it after ``Text`` and any trimming."""

    message: str
    schema: ClassVar[dict[str, Any]] = {"minLength": 1, "pattern": NON_BLANK_PATTERN}

    def check(self, value: str) -> str:
        """``value``, or ``ValueError(message)`` when blank."""
        if not value.strip():
            raise ValueError(self.message)
        return value


def _stripped(value: str) -> str:
    return value.strip()


@dataclass(frozen=True, slots=True)
class Text:
    """Field metadata of free text: a string of ``min_length`` to ``max_length`` characters as
    sent, without control characters (refused with 'Must not contain control characters'); the
    schema says so with ``minLength``, ``maxLength`` and :data:`TEXT_PATTERN`."""

    max_length: int
    min_length: int = 0

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(
            _no_control_characters,
            core_schema.str_schema(min_length=self.min_length or None, max_length=self.max_length),
        )

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema.update(maxLength=self.max_length, pattern=TEXT_PATTERN)
        return json_schema


Email = Annotated[str, Text(EMAIL_MAX_LENGTH), AfterValidator(normalize_email)]
"""An email address as typed: lowercased and trimmed (SPEC 5). Syntax is checked where a
form asks for it; add ``Required(message)`` where it may not be empty."""

PersonName = Annotated[str, Text(NAME_MAX_LENGTH), AfterValidator(_stripped)]
"""A first or last name, trimmed (SPEC 5 "Names are trimmed")."""

AccountName = Annotated[str, Text(ACCOUNT_NAME_MAX_LENGTH), AfterValidator(_stripped)]
"""An account (organization) name, trimmed; add ``Required(message)``."""


@dataclass(frozen=True, slots=True)
class ValidEmail(FieldRule):
    """The address must have the standard syntax (email-validator), refused with ``message``;
    the schema says ``format: email``."""

    message: str
    schema: ClassVar[dict[str, Any]] = {"format": "email"}

    def check(self, value: str) -> str:
        """``value``, or ``ValueError(message)`` when it is not a well-formed address."""
        if value and not is_valid_email(value):
            raise ValueError(self.message)
        return value


def _whole_number(value: object) -> object:
    # JSON Schema's "integer" is any number without a fraction (14.0 included), never a string
    # or a boolean: accept exactly that, where pydantic's strict mode refuses 14.0 and its lax
    # mode takes "14".
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be a valid integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("Input should be a valid integer")
        return int(value)
    return value


WHOLE_NUMBER = BeforeValidator(_whole_number)
"""Field metadata of an integer as JSON Schema means it: ``14`` or ``14.0``, never ``"14"``
or ``true``. Put it after the constraints: ``Annotated[int, Field(ge=0), WHOLE_NUMBER]``."""
