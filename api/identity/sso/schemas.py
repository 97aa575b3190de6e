"""Wire shapes of the SSO setting (SPEC 3 "sso", settings field requireGoogleSSO) and of its
domains (README "Verified domains", SPEC 9 "domain box")."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from api.identity.sso.saml_metadata import MAX_METADATA_BYTES
from api.kernel.schemas import ApiModel, Required, Text
from api.models import DomainFailure, DomainState

DOMAIN_INPUT_MAX_LENGTH = 260  # 253 characters of name, a trailing dot and some white space


class Sso(ApiModel):
    """Single sign-on state: whether Google sign-in is required, whether sign-in through the
    account's SAML connection is (README "SAML single sign-on"; never both), and the verified
    email domains whose Google identities may join the account while Google is required."""

    is_google_sso: bool = Field(alias="isGoogleSSO")
    is_saml_sso: bool = Field(alias="isSamlSSO")
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


# SAML single sign-on (README "SAML single sign-on").

URL_MAX_LENGTH = 2048
# XML text: line breaks and tabs are allowed, no other control character (XML 1.0 2.2 allows
# none of them either).
XML_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$(?!\n)"


class ServiceProvider(ApiModel):
    """What the identity provider needs to know about the console (the service provider, which
    is Cognito): the SP entity ID, also the audience (``urn:amazon:cognito:sp:<pool id>``),
    the assertion consumer service (ACS, reply) URL
    (``https://<Cognito domain>/saml2/idpresponse``), the NameID format (an email address)
    and the names of the SAML attributes to send."""

    entity_id: str
    acs_url: str
    name_id_format: str
    email_attribute: str
    first_name_attribute: str
    last_name_attribute: str


class SamlTest(ApiModel):
    """The last test sign-in: when, what the identity provider sent (the email and names,
    null when absent), and what was wrong (``problem``, null when it worked)."""

    tested_at: datetime
    email: str | None
    first_name: str | None
    last_name: str | None
    problem: str | None


class SamlConnection(ApiModel):
    """The account's SAML connection as Cognito holds it.

    ``metadataUrl``: where the metadata is fetched again every day (null: uploaded as a file);
    ``idpEntityId`` and ``ssoUrl``: the identity provider as its metadata describes it;
    ``certificateExpiresAt``: when its last signing certificate expires, and
    ``certificateExpiresSoon`` whether that is within 30 days; ``domains``: the verified domains
    Cognito routes to it (its identifiers); ``identifierNotices``: one sentence per verified
    domain Cognito cannot hold as an identifier (longer than 40 characters, or past the 50
    Cognito allows), whose people still sign in with 'Sign in with SSO'; ``metadataCheckedAt``:
    when the metadata was last fetched or uploaded; ``metadataError``: why the last daily fetch
    failed (null when it worked); ``identifiersError``: why Cognito refused the domains at the
    last hourly upkeep (null when it took them); ``connectedAt``: when it was set up;
    ``lastTest``: the last test sign-in, if any. ``linkingConfirmedAt`` /
    ``linkingConfirmedBy`` ('Name <email>', null once that user is gone): when and by which
    Owner it was allowed to link a first sign-in to an existing user of the account (null: a
    connection an Admin saved before connecting was an Owner's; it signs in only people new to
    the account until an Owner confirms it). ``signsRequests``:
    the identity provider wants signed sign-in requests (``WantAuthnRequestsSigned``), which
    Cognito then signs; ``signingCertificate``: the certificate to give the identity provider
    for them (PEM; null when the requests are not signed, or Cognito could not be asked).
    """

    provider_name: str
    metadata_url: str | None
    idp_entity_id: str
    sso_url: str
    certificate_expires_at: datetime
    certificate_expires_soon: bool
    domains: list[str]
    identifier_notices: list[str]
    metadata_checked_at: datetime
    metadata_error: str | None
    identifiers_error: str | None
    connected_at: datetime
    last_test: SamlTest | None
    linking_confirmed_at: datetime | None
    linking_confirmed_by: str | None
    signs_requests: bool
    signing_certificate: str | None


class SamlSettingsResponse(ApiModel):
    """The values to give the identity provider, and the connection (null before set-up)."""

    service_provider: ServiceProvider
    connection: SamlConnection | None


class SamlMetadataByUrl(ApiModel):
    """``PUT /web/sso/saml`` by URL (preferred: the metadata is fetched again every day)."""

    model_config = ConfigDict(extra="forbid")

    metadata_url: Annotated[str, Text(URL_MAX_LENGTH, min_length=1)]


class SamlMetadataByXml(ApiModel):
    """``PUT /web/sso/saml`` with the metadata document itself (an uploaded XML file)."""

    model_config = ConfigDict(extra="forbid")

    metadata_xml: Annotated[
        str, Field(min_length=1, max_length=MAX_METADATA_BYTES, pattern=XML_PATTERN)
    ]


SamlConnectionUpdate = SamlMetadataByUrl | SamlMetadataByXml
"""The identity provider's metadata, by URL or as XML (exactly one)."""


class SamlRequirementUpdate(ApiModel):
    """``POST /web/sso/saml/requirement``: require sign-in through the SAML connection, or stop."""

    require_saml_sso: bool = Field(alias="requireSamlSSO", strict=True)


class SamlTestStart(ApiModel):
    """``POST /web/sso/saml/test``: where the hosted UI sends the test window back
    (``/oauth/saml-test`` of the console)."""

    redirect_uri: Annotated[str, Text(URL_MAX_LENGTH, min_length=1)]


class SamlTestStarted(ApiModel):
    """Where to open the test window: the hosted UI's authorize page for the connection, with a
    ``state`` and PKCE challenge bound to this browser (the ``saml_test_flow`` cookie)."""

    authorize_url: str


class SamlTestResult(ApiModel):
    """``POST /web/sso/saml/test/result``: the code and state the test window came back with,
    and the redirect URI the code was issued for."""

    code: Annotated[str, Text(2048, min_length=1)]
    state: Annotated[str, Text(512, min_length=1)]
    redirect_uri: Annotated[str, Text(URL_MAX_LENGTH, min_length=1)]


class SamlTestResponse(ApiModel):
    """What the test sign-in found."""

    test: SamlTest
