"""What makes an identity provider's SAML metadata acceptable (README "SAML single sign-on").

The document is parsed with pysaml2's metadata schema classes (``saml2.md``, over defusedxml:
no entity expansion, no external references), then checked for what Cognito needs to sign
people in through it (SAML 2.0 Metadata, OASIS saml-metadata-2.0-os 2.3-2.4; "Adding SAML
identity providers to a user pool", Amazon Cognito developer guide):

- an ``EntityDescriptor`` (alone, or the only one of an ``EntitiesDescriptor``) with an
  ``entityID``;
- an ``IDPSSODescriptor`` in it;
- a signing certificate (a ``KeyDescriptor`` whose ``use`` is ``signing`` or unset, with an
  ``X509Certificate``) that has not expired;
- a ``SingleSignOnService`` with the HTTP-Redirect or HTTP-POST binding.

Each problem raises :class:`~api.identity.sso.errors.InvalidSamlMetadata` with a message naming it.
Before pysaml2 reads it, the document's nesting is measured in one streaming pass (defusedxml's
``iterparse``, stopped at :data:`MAX_METADATA_DEPTH`), so no hostile document reaches
pysaml2's recursion.
"""

from __future__ import annotations

import base64
import binascii
import io
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.etree.ElementTree import ParseError

import saml2
from cryptography import x509
from defusedxml.ElementTree import iterparse
from saml2 import md

from api.identity.sso.errors import InvalidSamlMetadata

BINDINGS = (saml2.BINDING_HTTP_REDIRECT, saml2.BINDING_HTTP_POST)
"""The bindings Cognito sends sign-in requests with (SP-initiated sign-in)."""

MAX_METADATA_BYTES = 256 * 1024
"""The largest metadata document taken (Microsoft Entra ID's federation metadata is ~20 KB)."""

MAX_METADATA_DEPTH = 64
"""The deepest element nesting taken. Real metadata nests about ten deep (EntitiesDescriptor >
EntityDescriptor > IDPSSODescriptor > KeyDescriptor > KeyInfo > X509Data > X509Certificate;
a Signature's Transforms a few more); pysaml2 turns elements into its classes recursively, so
a document nested a thousand deep would end in a RecursionError."""


@dataclass(frozen=True, slots=True)
class IdpMetadata:
    """A checked metadata document: ``document`` as given (UTF-8 text), the identity
    provider's ``entity_id``, its ``sso_url`` (HTTP-Redirect preferred, as Cognito does) and
    when its last signing certificate expires (``certificate_expires_at``, UTC)."""

    document: str
    entity_id: str
    sso_url: str
    certificate_expires_at: datetime


def _check_depth(document: bytes) -> None:
    """Refuse a document nested deeper than :data:`MAX_METADATA_DEPTH`, reading it once as a
    stream and stopping at the first element past it. A document that is no XML passes here
    and is refused by :func:`_entity`, which reports it."""
    depth = 0
    try:
        for event, _ in iterparse(io.BytesIO(document), events=("start", "end")):
            depth += 1 if event == "start" else -1
            if depth > MAX_METADATA_DEPTH:
                raise InvalidSamlMetadata(
                    f"The metadata nests its elements more than {MAX_METADATA_DEPTH} deep: it "
                    "is not an identity provider's metadata."
                )
    except (ParseError, ValueError):  # defusedxml's refusals are ValueErrors too
        return


def _entity(document: bytes) -> md.EntityDescriptor:
    try:
        entity = md.entity_descriptor_from_string(document)
        if entity is not None:
            return entity
        entities = md.entities_descriptor_from_string(document)
    except (ParseError, ValueError) as exc:  # defusedxml's refusals are ValueErrors too
        raise InvalidSamlMetadata(
            "The metadata is not a valid XML document. Upload the identity provider's SAML "
            "metadata file as it was downloaded."
        ) from exc
    if entities is None:
        raise InvalidSamlMetadata(
            "The metadata has no EntityDescriptor: it is not SAML 2.0 metadata."
        )
    idps = [e for e in entities.entity_descriptor if e.idpsso_descriptor]
    if len(idps) != 1:
        raise InvalidSamlMetadata(
            "The metadata describes "
            + ("no identity provider" if not idps else f"{len(idps)} identity providers")
            + ": use the metadata of your own identity provider's application."
        )
    only: md.EntityDescriptor = idps[0]
    return only


def _certificate(text: str) -> x509.Certificate:
    try:
        der = base64.b64decode("".join(text.split()), validate=True)
        return x509.load_der_x509_certificate(der)
    except (binascii.Error, ValueError) as exc:
        raise InvalidSamlMetadata(
            "The signing certificate in the metadata cannot be read (an X509Certificate that "
            "is not a base64 DER certificate)."
        ) from exc


def _signing_certificates(idp: md.IDPSSODescriptor) -> list[x509.Certificate]:
    texts = [
        data.x509_certificate.text
        for key in idp.key_descriptor
        if key.use in (None, "", "signing") and key.key_info is not None
        for data in key.key_info.x509_data
        if data.x509_certificate is not None and data.x509_certificate.text
    ]
    if not texts:
        raise InvalidSamlMetadata(
            "The metadata has no signing certificate (a KeyDescriptor with an "
            "X509Certificate in the IDPSSODescriptor)."
        )
    return [_certificate(text) for text in texts]


def _sso_url(idp: md.IDPSSODescriptor) -> str:
    by_binding = {s.binding: s.location for s in idp.single_sign_on_service if s.location}
    for binding in BINDINGS:
        if binding in by_binding:
            return str(by_binding[binding])
    raise InvalidSamlMetadata(
        "The metadata has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding."
    )


def parse_metadata(document: str | bytes, *, now: datetime | None = None) -> IdpMetadata:
    """Parse and check an identity provider's SAML metadata.

    Args:
        document: the XML, as text or bytes (at most :data:`MAX_METADATA_BYTES`).
        now: the time certificates are checked at (default: now).

    Returns the identity provider's entity ID, sign-in URL and the expiry of its last signing
    certificate.

    Raises:
        InvalidSamlMetadata: the first problem found, named in its message.
    """
    raw = document.encode() if isinstance(document, str) else document
    if len(raw) > MAX_METADATA_BYTES:
        raise InvalidSamlMetadata(
            f"The metadata is larger than {MAX_METADATA_BYTES // 1024} KB: it is not a single "
            "identity provider's metadata."
        )
    try:
        text = raw.decode()
    except UnicodeDecodeError as exc:
        raise InvalidSamlMetadata("The metadata is not UTF-8 text.") from exc
    _check_depth(raw)
    entity = _entity(raw)
    if not entity.entity_id:
        raise InvalidSamlMetadata("The metadata's EntityDescriptor has no entityID.")
    if not entity.idpsso_descriptor:
        raise InvalidSamlMetadata(
            "The metadata has no IDPSSODescriptor: it does not describe a SAML identity "
            "provider (is it the metadata of a service provider?)."
        )
    idp = entity.idpsso_descriptor[0]
    moment = now or datetime.now(UTC)
    expiries = [cert.not_valid_after_utc for cert in _signing_certificates(idp)]
    if max(expiries) <= moment:
        raise InvalidSamlMetadata(
            "The identity provider's signing certificate expired on "
            f"{max(expiries):%Y-%m-%d}: add a new certificate at the identity provider and "
            "use its new metadata."
        )
    return IdpMetadata(
        document=text,
        entity_id=str(entity.entity_id),
        sso_url=_sso_url(idp),
        certificate_expires_at=max(expiries),
    )
