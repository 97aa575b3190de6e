"""Wire shapes of the SSO setting (SPEC 3 "sso", settings field requireGoogleSSO) and of its
domains (README "Verified domains", SPEC 9 "domain box")."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from api.models import DomainFailure, DomainState
from api.schemas import ApiModel, Required, Text

DOMAIN_INPUT_MAX_LENGTH = 260  # 253 characters of name, a trailing dot and some white space


class Sso(ApiModel):
    """Google single sign-on state: whether it is required, and the verified email domains
    whose Google identities may join the account while it is."""

    is_google_sso: bool = Field(alias="isGoogleSSO")
    domains: list[str]


class SsoUpdate(ApiModel):
    """``POST /web/sso`` body."""

    require_google_sso: bool = Field(alias="requireGoogleSSO", strict=True)


class SsoResponse(ApiModel):
    """The account's SSO state after the change."""

    sso: Sso


class DomainRecord(ApiModel):
    """The DNS record that proves the domain: publish ``value`` as a TXT record at ``name``
    (the domain's apex)."""

    type: Literal["TXT"]
    name: str
    value: str


class SsoDomain(ApiModel):
    """A domain of the account and where its proof stands.

    ``failure`` and ``message`` say why the last check did not verify it (null when it did,
    or before any check); ``checkedAt`` is the last check's time, ``verifiedAt`` the last
    successful one's (ISO 8601, UTC).
    """

    id: uuid.UUID
    domain: str
    state: DomainState
    failure: DomainFailure | None
    message: str | None
    record: DomainRecord
    checked_at: datetime | None
    verified_at: datetime | None


class SsoDomainCreate(ApiModel):
    """``POST /web/sso/domains``: the domain, e.g. ``example.com`` (trimmed, lowercased, a
    trailing dot dropped)."""

    domain: Annotated[str, Text(DOMAIN_INPUT_MAX_LENGTH), Required("Enter a domain")]


class SsoDomainResponse(ApiModel):
    """One domain after a change."""

    domain: SsoDomain


class SsoDomainsResponse(ApiModel):
    """The account's domains, by name."""

    domains: list[SsoDomain]
