"""Wire shapes of Directory sync in User Management (README "Directory sync (SCIM)"):
``GET``/``POST /web/scim-tokens``, ``DELETE /web/scim-tokens/{id}``, ``GET /web/scim-groups``,
``PUT /web/scim-groups/{id}/role``; and the SCIM service's
responses as the contract describes them (the service itself reads and writes scim2-models'
resources, ``api/identity/directory/resources.py``)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from api.kernel.schemas import ApiModel
from api.models import Role


class ScimTokenView(ApiModel):
    """A SCIM token as the console lists it: its last four characters (``scim_…a1B2``), when
    it was generated and by whom (null once that user is removed), when it was last used (to
    the minute; null: never)."""

    id: uuid.UUID
    masked: str
    created_at: datetime
    created_by: str | None = Field(description="The name of who generated it.")
    last_used_at: datetime | None


class DirectorySync(ApiModel):
    """The SCIM service's base URL to give the identity provider, the account's tokens,
    newest first, and how many live tokens an account may have."""

    base_url: str
    tokens: list[ScimTokenView]
    max_tokens: int = Field(description="Live tokens an account may have (a 4th is refused).")


class DirectoryGroupView(ApiModel):
    """A group of the account's directory, as it sent it, and the role it gives in the
    console (null: none)."""

    id: str = Field(description="The group's SCIM id.")
    display_name: str
    external_id: str | None = Field(description="The directory's own id of the group.")
    role: Role | None = Field(
        description="What its members get in the console: a person's role is the highest of "
        "their mapped groups'."
    )
    members: int = Field(description="How many users of the account are in it.")


class DirectoryGroups(ApiModel):
    """The account's directory groups, by name."""

    groups: list[DirectoryGroupView]


class DirectoryGroupRole(ApiModel):
    """The role a directory group gives (null: none). Only an Owner maps a group to Owner."""

    role: Role | None


class ScimTokenCreated(ApiModel):
    """A token just generated: ``secret`` is the token itself, shown this once (only its
    SHA-256 is kept)."""

    token: ScimTokenView
    secret: str


# ------------------------------------------------- the SCIM service's responses, as documented
# What the SCIM routes answer (RFC 7643 4.1, 4.2, 5, 6, 7; RFC 7644 3.4.2), for the contract:
# the routes write scim2-models' own dump (api/identity/directory/router.py), these say its shape.
# Only ``schemas`` and ``id`` are always there: ``attributes`` / ``excludedAttributes`` leave the
# rest out on request, and an attribute without a value is left out, never null.

Omitted = SkipJsonSchema[None]
"""An attribute that may be left out (the contract says so by not requiring it; it is never
null on the wire)."""


class ScimMeta(ApiModel):
    """``meta`` of a resource (RFC 7643 3.1)."""

    resource_type: str = Field(examples=["User"])
    created: datetime | Omitted = None
    location: str = Field(description="The resource's URL.")


class ScimName(ApiModel):
    """``name`` of a User: the console user's first and last name."""

    given_name: str | Omitted = None
    family_name: str | Omitted = None


class ScimEmail(ApiModel):
    """An entry of a User's ``emails``; the primary one is the address they sign in with."""

    value: str
    type: str | Omitted = Field(default=None, examples=["work"])
    primary: bool | Omitted = None


class ScimUser(ApiModel):
    """A User resource (``urn:ietf:params:scim:schemas:core:2.0:User``), with the attributes
    the console keeps (README "Directory sync (SCIM)")."""

    schemas: list[str] = Field(examples=[["urn:ietf:params:scim:schemas:core:2.0:User"]])
    id: str = Field(description="The console's user id.")
    external_id: str | Omitted = None
    meta: ScimMeta | Omitted = None
    user_name: str | Omitted = Field(default=None, description="The email, unique in the account.")
    name: ScimName | Omitted = None
    display_name: str | Omitted = None
    active: bool | Omitted = Field(default=None, description="False: their access is turned off.")
    emails: list[ScimEmail] | Omitted = None


class ScimMember(ApiModel):
    """A member of a Group: a User of the account."""

    value: str = Field(description="The User's id.")
    ref: str | Omitted = Field(default=None, alias="$ref", description="The User's URL.")
    type: str | Omitted = Field(default=None, examples=["User"])
    display: str | Omitted = Field(
        default=None,
        description="As the directory sent it, else the console's name of the user (given "
        "and family name), else their email.",
    )


class ScimGroup(ApiModel):
    """A group of the account's directory, as it named it
    (``urn:ietf:params:scim:schemas:core:2.0:Group``); the role it gives is set in User
    Management (``/web/scim-groups``)."""

    schemas: list[str] = Field(examples=[["urn:ietf:params:scim:schemas:core:2.0:Group"]])
    id: str = Field(
        description="A UUID; ``owners``, ``admins`` or ``members`` for the three groups an "
        "account had before it took its directory's own.",
    )
    external_id: str | Omitted = None
    meta: ScimMeta | Omitted = None
    display_name: str | Omitted = Field(default=None, examples=["Autostep Admins"])
    members: list[ScimMember] | Omitted = Field(default=None, description="Left out when empty.")


class _ScimList(ApiModel):
    """A ``ListResponse`` (RFC 7644 3.4.2): one page of the matches, from ``startIndex``."""

    schemas: list[str] = Field(examples=[["urn:ietf:params:scim:api:messages:2.0:ListResponse"]])
    total_results: int = Field(description="Every match, across pages.")
    start_index: int | Omitted = None
    items_per_page: int | Omitted = None


class ScimUserList(_ScimList):
    """A page of Users."""

    resources: list[ScimUser] = Field(default=[], alias="Resources")


class ScimGroupList(_ScimList):
    """A page of Groups."""

    resources: list[ScimGroup] = Field(default=[], alias="Resources")


class ScimSupported(ApiModel):
    """Whether a feature of the protocol is offered."""

    supported: bool


class ScimBulk(ScimSupported):
    """Bulk operations: not offered."""

    max_operations: int
    max_payload_size: int


class ScimFilter(ScimSupported):
    """Filters, and the most resources one list answers."""

    max_results: int


class ScimAuthenticationScheme(ApiModel):
    """How a SCIM client authenticates: a SCIM token as a bearer token."""

    type: str = Field(examples=["oauthbearertoken"])
    name: str
    description: str
    spec_uri: str | Omitted = None
    primary: bool | Omitted = None


class ScimServiceProviderConfig(ApiModel):
    """What the service supports (RFC 7643 5)."""

    schemas: list[str]
    patch: ScimSupported
    bulk: ScimBulk
    filter: ScimFilter
    change_password: ScimSupported
    sort: ScimSupported
    etag: ScimSupported
    authentication_schemes: list[ScimAuthenticationScheme]


class ScimResourceType(ApiModel):
    """A resource type (RFC 7643 6): ``User`` at ``/Users``, ``Group`` at ``/Groups``."""

    schemas: list[str]
    id: str = Field(examples=["User"])
    name: str
    description: str | Omitted = None
    endpoint: str = Field(examples=["/Users"])
    schema_: str = Field(alias="schema", examples=["urn:ietf:params:scim:schemas:core:2.0:User"])


class ScimResourceTypeList(_ScimList):
    """Every resource type."""

    resources: list[ScimResourceType] = Field(default=[], alias="Resources")


class ScimSchema(ApiModel):
    """A schema (RFC 7643 7): a resource's attributes as the console keeps them."""

    schemas: list[str]
    id: str = Field(examples=["urn:ietf:params:scim:schemas:core:2.0:User"])
    name: str | Omitted = None
    description: str | Omitted = None
    attributes: list[dict[str, Any]] = Field(
        description="The attribute definitions (RFC 7643 7: name, type, multiValued...)."
    )


class ScimSchemaList(_ScimList):
    """Every schema."""

    resources: list[ScimSchema] = Field(default=[], alias="Resources")
