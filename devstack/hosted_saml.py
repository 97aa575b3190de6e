"""Development-only: the hosted-UI stand-in's side of SAML, playing Cognito as the service
provider of each account's SAML connection (README "SAML single sign-on"; Amazon Cognito
developer guide, "SAML user pool IdP authentication flow").

- ``/oauth2/authorize`` with ``idp_identifier=<domain>`` (or ``identity_provider=<name>``) finds
  the pool's SAML identity provider it names (moto stores them: CreateIdentityProvider), which
  must be listed in the app client's ``SupportedIdentityProviders``, and sends the browser to
  its sign-in URL with an AuthnRequest (HTTP-Redirect binding) from
  ``urn:amazon:cognito:sp:<pool id>``, remembering it under the RelayState. A provider with
  ``ProviderDetails.RequestSigningAlgorithm`` ``rsa-sha256`` gets the request signed (SAML
  Bindings 3.4.4.1: ``SigAlg`` and ``Signature`` in the query) with the pool's signing key,
  whose certificate GetSigningCertificate returns (the moto stand-in makes the key and hands
  it over in the ``x-moto-signing-key`` header, recorded by :func:`cognito_event_hooks`).
- ``POST /saml2/idpresponse`` checks the response against the metadata stored in the pool
  (``ProviderDetails.MetadataFile``) with pysaml2 (signature by the identity provider's
  certificate, NotOnOrAfter, InResponseTo the request it sent) and itself where pysaml2
  lets a response through (the Response's Destination must be present and be this ACS URL, a
  bearer SubjectConfirmation's Recipient this ACS URL, the AudienceRestriction the pool's SP
  entity ID: :func:`check_response`), then creates or updates the federated user
  ``<provider name>_<NameID>`` with the mapped attributes and the ``identities`` attribute
  Cognito gives federated users (``providerType`` SAML), signs it in and redirects to the app
  client's callback with a code. A refused response redirects there with an OAuth error.

moto stores identity providers but does none of this (no metadata parsing, no hosted UI, no
``/saml2/idpresponse``). ``api.kernel.config.Settings.check`` refuses ``DEV_STAND_INS`` outside
development, so production never mounts this module.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import secrets
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import httpx
from defusedxml.ElementTree import ParseError, fromstring
from fastapi import APIRouter, FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.saml import SCM_BEARER
from saml2.xmldsig import SIG_RSA_SHA256

from api.adapters.cognito import CognitoClient, ResourceNotFoundError, UserNotFoundError
from api.identity.sso.saml_metadata import parse_metadata
from devstack.hosted_codes import back_to_client, redirect_signed_in
from devstack.saml_idp import XMLSEC1

router = APIRouter(include_in_schema=False)

ACS_PATH = "/saml2/idpresponse"
REQUEST_TTL_S = 600


@dataclass(frozen=True, slots=True)
class Pending:
    """A sign-in waiting for its identity provider's response: the provider, where the browser
    goes back to, the AuthnRequest's id (InResponseTo) and until when (``time.monotonic``)."""

    provider_name: str
    redirect_uri: str
    state: str
    code_challenge: str
    request_id: str
    expires_at: float


def _pending(request: Request) -> dict[str, Pending]:
    if not hasattr(request.app.state, "saml_requests"):
        request.app.state.saml_requests = {}
    pending: dict[str, Pending] = request.app.state.saml_requests
    return pending


def _error_page(message: str) -> HTMLResponse:
    return HTMLResponse(f"<h1>invalid_request</h1><p>{message}</p>", status_code=400)


@dataclass(frozen=True, slots=True)
class ServiceProvider:
    """Cognito as the service provider: its entity ID (the audience,
    ``urn:amazon:cognito:sp:<pool id>``) and its ACS URL (``<hosted UI>/saml2/idpresponse``)."""

    entity_id: str
    acs_url: str


def _service_provider(request: Request) -> ServiceProvider:
    settings = request.app.state.settings
    return ServiceProvider(
        entity_id=f"urn:amazon:cognito:sp:{settings.cognito.user_pool_id}",
        acs_url=settings.cognito.hosted_ui_url.rstrip("/") + ACS_PATH,
    )


def _sp_client(request: Request, metadata: str, signing: Path | None = None) -> Saml2Client:
    """Cognito as the service provider of one identity provider (its metadata); with
    ``signing`` (the folder of the pool's ``signing.key`` and ``signing.crt``), its sign-in
    requests are signed."""
    sp = _service_provider(request)
    acs_url = sp.acs_url
    keys = (
        {"key_file": str(signing / "signing.key"), "cert_file": str(signing / "signing.crt")}
        if signing is not None
        else {}
    )
    return Saml2Client(
        config=SPConfig().load(
            {
                "entityid": sp.entity_id,
                "xmlsec_binary": XMLSEC1,
                "metadata": {"inline": [metadata]},
                "allow_unknown_attributes": True,
                **keys,
                "service": {
                    "sp": {
                        "endpoints": {"assertion_consumer_service": [(acs_url, BINDING_HTTP_POST)]},
                        "want_response_signed": True,
                        "want_assertions_signed": False,
                        "authn_requests_signed": signing is not None,
                        "allow_unsolicited": False,
                    }
                },
            }
        )
    )


def cognito_event_hooks(app: FastAPI) -> dict[str, list[Any]]:
    """httpx hooks for the Cognito adapter that keep the pool's SAML signing key, which the
    moto stand-in sends with GetSigningCertificate (``x-moto-signing-key``: the PEM, base64)
    beside the certificate, in ``app.state.cognito_signing_keys`` (pool id -> (certificate,
    key PEM))."""
    keys: dict[str, tuple[str, bytes]] = {}
    app.state.cognito_signing_keys = keys

    async def on_response(response: httpx.Response) -> None:
        target = response.request.headers.get("x-amz-target", "").rsplit(".", 1)[-1]
        key = response.headers.get("x-moto-signing-key")
        if target != "GetSigningCertificate" or response.status_code != 200 or not key:
            return
        await response.aread()
        pool = json.loads(response.request.content or b"{}").get("UserPoolId", "")
        keys[pool] = (str(response.json()["Certificate"]), base64.b64decode(key))

    return {"response": [on_response]}


async def _signing_folder(request: Request, cognito: CognitoClient) -> Path:
    """The folder of the pool's current signing key and certificate (PEM files, which pysaml2
    reads), beside the dev stack's other data; asks GetSigningCertificate which is current."""
    certificate = await cognito.get_signing_certificate()
    _, key = request.app.state.cognito_signing_keys[cognito.user_pool_id]
    folder = Path(request.app.state.settings.mail.dev_mailbox_path).parent / "cognito-saml"
    folder.mkdir(parents=True, exist_ok=True)
    lines = textwrap.wrap(certificate, 64)
    pem = "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----\n"
    if not (folder / "signing.crt").exists() or (folder / "signing.crt").read_text() != pem:
        (folder / "signing.key").write_bytes(key)
        (folder / "signing.key").chmod(0o600)
        (folder / "signing.crt").write_text(pem)
    return folder


async def _saml_provider(
    cognito: CognitoClient, *, name: str, identifier: str
) -> dict[str, Any] | None:
    """The pool's SAML identity provider of ``name``, or the one with ``identifier``."""
    names = [name] if name else await cognito.list_identity_providers()
    for candidate in names:
        try:
            provider = await cognito.describe_identity_provider(candidate)
        except ResourceNotFoundError:
            continue
        if provider.get("ProviderType") != "SAML":
            continue
        if name or identifier in (provider.get("IdpIdentifiers") or []):
            return provider
    return None


async def start(
    request: Request,
    *,
    identity_provider: str,
    idp_identifier: str,
    redirect_uri: str,
    state: str,
    code_challenge: str,
) -> Response:
    """The authorize request for a SAML identity provider (by name, or by one of its
    identifiers): to its sign-in page with an AuthnRequest, remembering where the browser goes
    back to (``redirect_uri`` with ``state``; ``code_challenge`` for the token endpoint), or
    an error page when the pool has no such provider for this client."""
    cognito: CognitoClient = request.app.state.resources.cognito
    provider = await _saml_provider(cognito, name=identity_provider, identifier=idp_identifier)
    if provider is None:
        return _error_page("No identity provider matches the request.")
    name = str(provider["ProviderName"])
    client = await cognito.describe_app_client()
    if name not in (client.get("SupportedIdentityProviders") or []):
        return _error_page(f"The identity provider {name} is not enabled for this client.")
    details = provider["ProviderDetails"]
    metadata = str(details["MetadataFile"])
    idp_entity_id = parse_metadata(metadata).entity_id
    relay_state = secrets.token_urlsafe(24)
    signed = details.get("RequestSigningAlgorithm") == "rsa-sha256"
    signing = await _signing_folder(request, cognito) if signed else None
    request_id, info = await asyncio.to_thread(
        _sp_client(request, metadata, signing).prepare_for_authenticate,
        entityid=idp_entity_id,
        relay_state=relay_state,
        binding=BINDING_HTTP_REDIRECT,
        sign=signed,
        sigalg=SIG_RSA_SHA256 if signed else None,
    )
    _pending(request)[relay_state] = Pending(
        provider_name=name,
        redirect_uri=redirect_uri,
        state=state,
        code_challenge=code_challenge,
        request_id=str(request_id),
        expires_at=time.monotonic() + REQUEST_TTL_S,
    )
    return RedirectResponse(dict(info["headers"])["Location"], status_code=302)


@dataclass(frozen=True, slots=True)
class Asserted:
    """What a valid response asserts: the NameID, the identity provider's entity ID and the
    attributes (SAML name -> values)."""

    name_id: str
    issuer: str
    attributes: dict[str, list[str]]


def _destination(document: bytes) -> str | None:
    """The ``Destination`` of the Response in ``document`` (read before pysaml2, which drops a
    response whose Destination is wrong without saying so). Raises ValueError (not XML)."""
    try:
        root = fromstring(document)
    except ParseError as exc:
        raise ValueError("The SAMLResponse is not XML") from exc
    destination = root.get("Destination")
    return None if destination is None else str(destination)


def check_response(
    client: Saml2Client, saml_response: str, request_id: str, sp: ServiceProvider
) -> Asserted:
    """Check a response as Cognito does (see the module): signed by the identity provider,
    InResponseTo the request sent, within its validity, and made for this service provider
    (the SAML 2.0 Web Browser SSO profile, saml-profiles-2.0-os 4.1.4.2-4.1.4.3, which Cognito
    applies): the Response's ``Destination`` is present and is ``sp.acs_url``, a bearer
    ``SubjectConfirmation`` of the assertion has ``sp.acs_url`` as its ``Recipient``, and the
    assertion's ``AudienceRestriction`` names ``sp.entity_id``.

    Raises: ValueError naming what is wrong.
    """
    try:
        document = base64.b64decode(saml_response, validate=True)
    except binascii.Error as exc:
        raise ValueError("The SAMLResponse is not base64") from exc
    destination = _destination(document)
    if not destination:
        raise ValueError(f"The Response has no Destination (it must be this ACS URL, {sp.acs_url})")
    if destination != sp.acs_url:
        raise ValueError(f"The Response's Destination is not this ACS URL ({sp.acs_url})")
    try:
        parsed = client.parse_authn_request_response(
            saml_response, BINDING_HTTP_POST, outstanding={request_id: "/"}
        )
    except Exception as exc:  # pysaml2 raises one class per failed check
        raise ValueError(f"{type(exc).__name__}: {exc}") from exc
    if parsed is None or parsed.name_id is None or not parsed.name_id.text:
        raise ValueError("The response asserts no NameID")
    assertion = parsed.assertion
    recipients = [
        confirmation.subject_confirmation_data.recipient
        for confirmation in assertion.subject.subject_confirmation
        if confirmation.method == SCM_BEARER and confirmation.subject_confirmation_data
    ]
    if sp.acs_url not in recipients:
        raise ValueError(
            "No bearer SubjectConfirmation of the assertion has this ACS URL "
            f"({sp.acs_url}) as its Recipient"
        )
    audiences = [
        audience.text.strip()
        for restriction in (
            assertion.conditions.audience_restriction if assertion.conditions else []
        )
        for audience in restriction.audience
        if audience.text
    ]
    if sp.entity_id not in audiences:
        raise ValueError(f"The assertion's Audience is not {sp.entity_id}")
    return Asserted(
        name_id=str(parsed.name_id.text),
        issuer=str(assertion.issuer.text),
        attributes={k: [str(v) for v in values] for k, values in parsed.ava.items()},
    )


def saml_identities(provider_name: str, name_id: str, issuer: str) -> str:
    """The ``identities`` attribute Cognito gives a user federated from a SAML provider."""
    identity = {
        "userId": name_id,
        "providerName": provider_name,
        "providerType": "SAML",
        "issuer": issuer,
        "primary": "true",
        "dateCreated": str(int(time.time() * 1000)),
    }
    return json.dumps([identity])


@router.post(ACS_PATH)
async def idp_response(
    request: Request,
    SAMLResponse: Annotated[str, Form()],  # noqa: N803 - SAML's parameter names
    RelayState: Annotated[str, Form()] = "",  # noqa: N803
) -> Response:
    """The identity provider's response (HTTP-POST binding): checked, then the browser goes
    back to the app client's callback with a code, or with an error."""
    pending = _pending(request).pop(RelayState, None)
    if pending is None or pending.expires_at < time.monotonic():
        return _error_page("Invalid relayState from identity provider")
    cognito: CognitoClient = request.app.state.resources.cognito
    try:
        provider = await cognito.describe_identity_provider(pending.provider_name)
    except ResourceNotFoundError:
        return _error_page("The identity provider no longer exists.")
    client = _sp_client(request, str(provider["ProviderDetails"]["MetadataFile"]))
    try:
        asserted = await asyncio.to_thread(
            check_response, client, SAMLResponse, pending.request_id, _service_provider(request)
        )
    except ValueError as exc:
        return back_to_client(
            pending.redirect_uri,
            {
                "error": "invalid_request",
                "error_description": f"Invalid SAML response received: {exc}",
                "state": pending.state,
            },
        )
    mapping: dict[str, str] = provider.get("AttributeMapping") or {}
    attributes = {
        pool: asserted.attributes.get(saml, [""])[0]
        for pool, saml in mapping.items()
        if pool != "username"
    }
    username = f"{pending.provider_name}_{asserted.name_id}"
    try:
        await cognito.admin_get_user(username)
    except UserNotFoundError:
        identities = saml_identities(pending.provider_name, asserted.name_id, asserted.issuer)
        await cognito.admin_create_user(
            username, {**attributes, "identities": identities}, suppress_message=True
        )
    else:  # the attribute mapping writes them again at every sign-in
        await cognito.admin_update_user_attributes(username, attributes)
    return await redirect_signed_in(
        request,
        username,
        redirect_uri=pending.redirect_uri,
        state=pending.state,
        code_challenge=pending.code_challenge,
    )
