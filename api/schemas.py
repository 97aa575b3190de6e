"""Base of every wire schema: camelCase on the wire (SPEC 3 names), snake_case in Python."""

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ApiModel(BaseModel):
    """Request and response bodies of /web/*."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)
