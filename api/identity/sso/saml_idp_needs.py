"""What an identity provider's metadata asks of the service provider, and what vendors publish
that no sign-in can ever match (README "SAML single sign-on").

Read from a document :func:`api.identity.sso.saml_metadata.parse_metadata` accepted (the stored
``saml_connection.metadata_xml``), with pysaml2's metadata schema classes, as it does:

- :func:`wants_signed_requests`: ``WantAuthnRequestsSigned="true"`` on the
  ``IDPSSODescriptor`` (SAML 2.0 Metadata, saml-metadata-2.0-os 2.4.3; Keycloak realms and
  some Okta apps publish it): the identity provider refuses unsigned sign-in requests, so
  Cognito must sign them (``ProviderDetails.RequestSigningAlgorithm`` ``rsa-sha256``:
  CreateIdentityProvider, "SAML signing and encryption", Amazon Cognito developer guide) and
  the identity provider must be given the pool's signing certificate (GetSigningCertificate).
- :func:`refuse_tenant_independent`: Microsoft Entra ID's tenant-independent metadata (the
  ``common`` and ``organizations`` endpoints) has the entity ID
  ``https://sts.windows.net/{tenantid}/`` with the placeholder left in: assertions are issued
  by ``https://sts.windows.net/<the tenant's id>/``, which never equals it, so every sign-in
  would fail ("Federation metadata", Microsoft identity platform documentation).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from saml2 import md

from api.identity.sso.errors import InvalidSamlMetadata

REQUEST_SIGNING_ALGORITHM = "rsa-sha256"
"""The one ``RequestSigningAlgorithm`` Cognito offers for signed SAML requests."""

ENTRA_TENANT_METADATA_URL = (
    "https://login.microsoftonline.com/<tenant-id>/federationmetadata/2007-06/"
    "federationmetadata.xml?appid=<app-id>"
)
ENTRA_TENANT_INDEPENDENT = (
    "This is Microsoft Entra ID's tenant-independent metadata (entity ID {entity_id}): no "
    "sign-in can ever match it. Use your enterprise application's own metadata, the App "
    "Federation Metadata Url under Single sign-on, SAML Certificates: "
    f"{ENTRA_TENANT_METADATA_URL}"
)
_ENTRA_HOSTS = frozenset({"sts.windows.net", "login.microsoftonline.com", "login.windows.net"})
_NO_TENANT = frozenset({"common", "organizations", "consumers"})


def _idp_descriptor(document: str) -> md.IDPSSODescriptor | None:
    """The ``IDPSSODescriptor`` parse_metadata read: of the ``EntityDescriptor``, or of the
    only identity provider of an ``EntitiesDescriptor``."""
    entity = md.entity_descriptor_from_string(document)
    if entity is None:
        entities = md.entities_descriptor_from_string(document)
        idps = [e for e in entities.entity_descriptor if e.idpsso_descriptor] if entities else []
        entity = idps[0] if len(idps) == 1 else None
    if entity is None or not entity.idpsso_descriptor:
        return None
    descriptor: md.IDPSSODescriptor = entity.idpsso_descriptor[0]
    return descriptor


def wants_signed_requests(document: str) -> bool:
    """Whether the identity provider's metadata (an accepted document, UTF-8 text) sets
    ``WantAuthnRequestsSigned`` to ``true`` (or ``1``: an ``xs:boolean``)."""
    descriptor = _idp_descriptor(document)
    flag = descriptor.want_authn_requests_signed if descriptor is not None else None
    return str(flag).strip().lower() in ("true", "1")


def refuse_tenant_independent(entity_id: str) -> None:
    """Refuse Microsoft Entra ID's tenant-independent metadata: an entity ID at an Entra ID
    host whose tenant is a placeholder (``{tenantid}``) or ``common``, ``organizations`` or
    ``consumers``.

    Raises: InvalidSamlMetadata, whose message points to the tenant's own metadata URL.
    """
    parts = urlsplit(entity_id.strip())
    if (parts.hostname or "").lower() not in _ENTRA_HOSTS:
        return
    tenant = next((segment for segment in parts.path.split("/") if segment), "")
    if "{" in tenant or "}" in tenant or tenant.lower() in _NO_TENANT:
        raise InvalidSamlMetadata(ENTRA_TENANT_INDEPENDENT.format(entity_id=entity_id))
