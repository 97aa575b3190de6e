"""Base of every wire schema: camelCase on the wire (SPEC 3 names), snake_case in Python;
and the field types several domains share, so each rule is written once."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from api.emails import normalize_email

EMAIL_MAX_LENGTH = 320  # RFC 5321: 64 + 1 + 255, rounded up as is customary
NAME_MAX_LENGTH = 100
REQUIRED = "Required"  # SPEC 5 Registration: "Every field is required, with the message"


class ApiModel(BaseModel):
    """Request and response bodies of /web/*."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


def required(message: str) -> AfterValidator:
    """A validator refusing an empty value with ``message`` (the form's own SPEC 5 text)."""

    def check(value: str) -> str:
        if not value:
            raise ValueError(message)
        return value

    return AfterValidator(check)


def _stripped(value: str) -> str:
    return value.strip()


Email = Annotated[str, Field(max_length=EMAIL_MAX_LENGTH), AfterValidator(normalize_email)]
"""An email address as typed: lowercased and trimmed (SPEC 5). Syntax is checked where a
form asks for it; add ``required(message)`` where it may not be empty."""

PersonName = Annotated[str, Field(max_length=NAME_MAX_LENGTH), AfterValidator(_stripped)]
"""A first or last name, trimmed (SPEC 5 "Names are trimmed")."""
