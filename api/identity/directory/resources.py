"""What the console's SCIM service serves (RFC 7643): its User resource, with the attributes
the console keeps, the directory's groups (scim2-models' ``Group``), and the discovery
documents built from them (``ServiceProviderConfig``, ``ResourceTypes``, ``Schemas``, RFC 7644
4).

The models are scim2-models resources, so validation, the PATCH grammar and its application,
filters and ``attributes``/``excludedAttributes`` are the library's. The User schema declares
only what the console stores; anything else a directory sends is dropped (RFC 7643 3: a
service provider may ignore attributes it does not support), under :data:`POLICY`.
"""

from __future__ import annotations

from typing import Annotated, Any

from scim2_models import (
    URN,
    AuthenticationScheme,
    Bulk,
    ChangePassword,
    ComplexAttribute,
    ETag,
    Filter,
    Group,
    Patch,
    Required,
    Resource,
    ScimPolicy,
    ScimProvider,
    ServiceProviderConfig,
    Sort,
    Uniqueness,
)
from scim2_models import Email as CoreEmail

MAX_RESULTS = 200
"""The most resources one list answers (``ServiceProviderConfig.filter.maxResults``); a
``count`` above it is lowered to it (RFC 7644 3.4.2.4)."""


class Name(ComplexAttribute):
    """The parts of ``name`` the console keeps: its user's first and last name."""

    given_name: str | None = None
    family_name: str | None = None


class Email(ComplexAttribute):
    """An email of the user, as the directory sends it; the primary one (else the first) is
    the address the person signs in with."""

    value: Annotated[str | None, Required.true] = None
    type: CoreEmail.Type | None = None
    primary: bool | None = None


class User(Resource[Any]):
    """The console's SCIM User (``urn:ietf:params:scim:schemas:core:2.0:User``), restricted to
    what the console keeps: ``userName`` (unique in the account), ``name.givenName`` and
    ``name.familyName`` (the user's names), ``displayName``, ``emails`` (required: the
    console needs the address people sign in with), ``active`` (false: access is turned off)
    and, from ``Resource``, ``externalId``."""

    __schema__ = URN("urn:ietf:params:scim:schemas:core:2.0:User")

    user_name: Annotated[str | None, Uniqueness.server, Required.true] = None
    name: Name | None = None
    display_name: str | None = None
    active: bool | None = None
    emails: Annotated[list[Email] | None, Required.true] = None


POLICY = ScimPolicy(
    # RFC 7643 3: attributes the console does not keep are dropped, as Okta and Entra ID send
    # many (title, locale, enterprise extension...).
    unknown=ScimPolicy.Unknown.ignore,
    # Entra ID removes group members with a value instead of a path filter.
    remove_value_as_filter=ScimPolicy.RemoveValue.apply,
    # Entra ID replaces emails[type eq "work"].value on a user who has no work email yet.
    unmatched_path_filter=ScimPolicy.UnmatchedPathFilter.create,
)

CONFIG = ServiceProviderConfig(
    documentation_uri=None,
    patch=Patch(supported=True),
    bulk=Bulk(supported=False, max_operations=0, max_payload_size=0),
    filter=Filter(supported=True, max_results=MAX_RESULTS),
    change_password=ChangePassword(supported=False),
    sort=Sort(supported=False),
    etag=ETag(supported=False),
    authentication_schemes=[
        AuthenticationScheme(
            type="oauthbearertoken",
            name="OAuth Bearer Token",
            description=(
                "A SCIM token of the account, generated under User Management, Directory "
                "sync, sent as Authorization: Bearer <token>"
            ),
            spec_uri="https://www.rfc-editor.org/rfc/rfc6750",
            primary=True,
        )
    ],
)

PROVIDER = ScimProvider(models=[User, Group], config=CONFIG, policy=POLICY)
"""The service: its resource types (``/Users``, ``/Groups``), schemas and configuration."""
