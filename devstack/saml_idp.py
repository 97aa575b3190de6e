"""Development-only stand-in for a customer's SAML identity provider (Okta, Microsoft Entra ID,
Google Workspace; ARCHITECTURE "Development and test stack", README "SAML single sign-on").

- ``GET /dev/saml-idp/metadata``: its SAML 2.0 metadata (entity ID: that URL), with its
  signing certificate and its sign-in URL;
- ``GET /dev/saml-idp/sso?SAMLRequest=...&RelayState=...`` (HTTP-Redirect binding): a sign-in
  page with Email, First name, Last name and Continue;
- ``POST /dev/saml-idp/sso``: signs a SAML 2.0 Response for that person (RSA-SHA256, pysaml2
  with Debian's xmlsec1) and has the browser post it to the request's ACS URL (HTTP-POST
  binding), where the hosted-UI stand-in checks it as Cognito would (devstack/hosted_saml.py).
- The same under ``/dev/saml-idp/signed-requests/`` is another application of the identity
  provider, one that **requires signed sign-in requests** as Keycloak realms and some Okta
  apps do: its metadata says ``WantAuthnRequestsSigned="true"``, and a request without a
  valid RSA-SHA256 signature (HTTP-Redirect binding, SAML Bindings 3.4.4.1) is refused with
  a page saying why. It trusts the service provider certificate an administrator would have
  uploaded to it: the pool's current signing certificate (Cognito's GetSigningCertificate).

Its signing key and self-signed certificate (RSA 2048, SHA-256) are made once per data folder,
so a connection saved with its metadata keeps working across restarts.

``api.kernel.config.Settings.check`` refuses ``DEV_STAND_INS`` outside development, so production
never mounts this module.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse
from saml2.config import IdPConfig
from saml2.saml import NameID
from saml2.server import Server
from saml2.sigver import RSACrypto, verify_redirect_signature
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

BINDING_REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
BINDING_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
NAME_ID_EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"


@dataclass(frozen=True)
class SigningKey:
    """The identity provider's key and certificate, PEM, and where they are on disk (pysaml2
    reads files)."""

    key_pem: bytes
    certificate_pem: bytes
    key_file: Path
    certificate_file: Path

    @property
    def certificate_base64(self) -> str:
        """The certificate's DER in base64, as metadata carries it (``X509Certificate``)."""
        lines = self.certificate_pem.decode().strip().splitlines()
        return "".join(line for line in lines if not line.startswith("-----"))


def new_certificate(
    key: rsa.RSAPrivateKey, *, common_name: str, not_after: datetime, not_before: datetime
) -> x509.Certificate:
    """A self-signed certificate of ``key`` valid from ``not_before`` to ``not_after``."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .sign(key, hashes.SHA256())
    )


def make_signing_key(
    folder: Path, *, valid_for: timedelta = timedelta(days=3650), valid_from: datetime | None = None
) -> SigningKey:
    """Write a new RSA key and self-signed certificate into ``folder`` (``idp.key``,
    ``idp.crt``) and return them; the certificate is valid for ``valid_for`` from
    ``valid_from`` (default: a day ago)."""
    folder.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    start = valid_from or datetime.now(UTC) - timedelta(days=1)
    certificate = new_certificate(
        key, common_name="Development SAML IdP", not_before=start, not_after=start + valid_for
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    certificate_pem = certificate.public_bytes(serialization.Encoding.PEM)
    key_file, certificate_file = folder / "idp.key", folder / "idp.crt"
    key_file.write_bytes(key_pem)
    key_file.chmod(0o600)
    certificate_file.write_bytes(certificate_pem)
    return SigningKey(key_pem, certificate_pem, key_file, certificate_file)


def load_signing_key(folder: Path) -> SigningKey:
    """The key of ``folder``, made on first use."""
    key_file, certificate_file = folder / "idp.key", folder / "idp.crt"
    if not key_file.exists() or not certificate_file.exists():
        return make_signing_key(folder)
    return SigningKey(
        key_file.read_bytes(), certificate_file.read_bytes(), key_file, certificate_file
    )


def metadata_xml(
    *,
    entity_id: str,
    sso_url: str,
    certificate_base64: str,
    want_signed_requests: bool = False,
) -> str:
    """The identity provider's SAML 2.0 metadata: an ``EntityDescriptor`` with one
    ``IDPSSODescriptor`` (its signing certificate, NameID format email address, sign-in at
    ``sso_url`` with the HTTP-Redirect and HTTP-POST bindings; ``WantAuthnRequestsSigned``
    as ``want_signed_requests`` says)."""
    entity, sso = html.escape(entity_id), html.escape(sso_url)
    signed = "true" if want_signed_requests else "false"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"
    xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="{entity}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="{signed}"
      protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>{certificate_base64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>{NAME_ID_EMAIL}</md:NameIDFormat>
    <md:SingleSignOnService Binding="{BINDING_REDIRECT}" Location="{sso}"/>
    <md:SingleSignOnService Binding="{BINDING_POST}" Location="{sso}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
"""


# ---------------------------------------------------------------------------------------------
# Signed responses (pysaml2's identity provider, signatures by Debian's xmlsec1)

ENTITY_PATH = "/dev/saml-idp/metadata"
SSO_PATH = "/dev/saml-idp/sso"
SIGNED_ENTITY_PATH = "/dev/saml-idp/signed-requests/metadata"
SIGNED_SSO_PATH = "/dev/saml-idp/signed-requests/sso"
PASSWORD_PROTECTED = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
XMLSEC1 = shutil.which("xmlsec1") or "/usr/bin/xmlsec1"


def _sp_metadata(entity_id: str, acs_url: str) -> str:
    """The service provider as the identity provider is told about it (its entity ID and
    ACS URL, as an administrator types them into Okta or Entra ID)."""
    return f"""<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"
    entityID="{html.escape(entity_id)}"><md:SPSSODescriptor
    protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:AssertionConsumerService
    Binding="{BINDING_POST}" Location="{html.escape(acs_url)}" index="0"/>
</md:SPSSODescriptor></md:EntityDescriptor>"""


def _server(
    key: SigningKey,
    base_url: str,
    sp_entity_id: str,
    acs_url: str,
    lifetime_s: int,
    entity_path: str = ENTITY_PATH,
    sso_path: str = SSO_PATH,
) -> Server:
    return Server(
        config=IdPConfig().load(
            {
                "entityid": base_url + entity_path,
                "key_file": str(key.key_file),
                "cert_file": str(key.certificate_file),
                "xmlsec_binary": XMLSEC1,
                "metadata": {"inline": [_sp_metadata(sp_entity_id, acs_url)]},
                "service": {
                    "idp": {
                        "endpoints": {
                            "single_sign_on_service": [(base_url + sso_path, BINDING_REDIRECT)]
                        },
                        "policy": {
                            "default": {
                                "lifetime": {"seconds": lifetime_s},
                                "attribute_restrictions": None,
                                "name_form": "urn:oasis:names:tc:SAML:2.0:attrname-format:basic",
                            }
                        },
                    }
                },
            }
        )
    )


@dataclass(frozen=True)
class Person:
    """Who signs in at the stand-in: their email (the NameID too) and names."""

    email: str
    first_name: str
    last_name: str


def signed_response(
    key: SigningKey,
    *,
    base_url: str,
    request_id: str,
    sp_entity_id: str,
    acs_url: str,
    person: Person,
    lifetime_s: int = 300,
    entity_path: str = ENTITY_PATH,
    destination: str | None = None,
    recipient: str | None = None,
) -> str:
    """A SAML 2.0 Response to the AuthnRequest ``request_id`` (InResponseTo) for ``person``:
    Destination and Recipient ``acs_url`` (or ``destination`` and ``recipient``, for the
    tests of the hosted-UI stand-in's checks; an empty ``destination`` leaves it out),
    Audience ``sp_entity_id``, NotOnOrAfter ``lifetime_s`` seconds from now (negative:
    already expired), NameID the email (format email address), attributes ``email``,
    ``firstName``, ``lastName``; the Response and its Assertion signed with RSA-SHA256 (SHA-256
    digests), issued by the application at ``entity_path``. Returns the XML text."""
    server = _server(key, base_url, sp_entity_id, acs_url, lifetime_s, entity_path)
    response = server.create_authn_response(
        identity={
            "email": [person.email],
            "firstName": [person.first_name],
            "lastName": [person.last_name],
        },
        in_response_to=request_id,
        destination=acs_url if destination is None else destination,
        sp_entity_id=sp_entity_id,
        farg=Server.update_farg(request_id, acs_url if recipient is None else recipient),
        name_id=NameID(format=NAME_ID_EMAIL, text=person.email),
        sign_response=True,
        sign_assertion=True,
        sign_alg=SIG_RSA_SHA256,
        digest_alg=DIGEST_SHA256,
        authn={"class_ref": PASSWORD_PROTECTED},
    )
    return str(response)


@dataclass(frozen=True)
class AuthnRequest:
    """What a service provider asked for: its request id, entity ID and ACS URL."""

    id: str
    issuer: str
    acs_url: str


def read_request(
    key: SigningKey, base_url: str, saml_request: str, sso_path: str = SSO_PATH
) -> AuthnRequest:
    """Decode an AuthnRequest sent with the HTTP-Redirect binding (deflated, base64) to the
    sign-in URL at ``sso_path``.

    Raises: ValueError when it is not one.
    """
    server = _server(key, base_url, "urn:unknown", base_url, 300, sso_path=sso_path)
    try:
        message = server.parse_authn_request(saml_request, BINDING_REDIRECT).message
    except Exception as exc:  # pysaml2 raises many kinds for a malformed request
        raise ValueError(f"Not a SAML AuthnRequest: {exc}") from exc
    if message is None or message.issuer is None or not message.assertion_consumer_service_url:
        raise ValueError("The AuthnRequest names no issuer or AssertionConsumerServiceURL")
    return AuthnRequest(
        id=str(message.id),
        issuer=str(message.issuer.text),
        acs_url=str(message.assertion_consumer_service_url),
    )


def check_request_signature(
    *, saml_request: str, relay_state: str, sig_alg: str, signature: str, certificate: str
) -> None:
    """Check the signature of a sign-in request sent with the HTTP-Redirect binding (SAML
    Bindings 3.4.4.1: RSA-SHA256 over ``SAMLRequest``, ``RelayState`` and ``SigAlg`` as
    URL-encoded) against the service provider's ``certificate`` (base64 DER), with pysaml2.

    Raises: ValueError saying what is wrong (no signature, another algorithm, a signature
    that does not verify).
    """
    if not signature or not sig_alg:
        raise ValueError(
            "This application requires signed sign-in requests, and the request is not signed."
        )
    if sig_alg != SIG_RSA_SHA256:
        raise ValueError(f"Sign-in requests must be signed with RSA-SHA256, not {sig_alg}.")
    message = {"SAMLRequest": saml_request, "SigAlg": sig_alg, "Signature": signature}
    if relay_state:
        message["RelayState"] = relay_state
    try:
        verified = verify_redirect_signature(message, RSACrypto(None), certificate)
    except Exception as exc:  # pysaml2 raises several kinds for a malformed signature
        raise ValueError(f"The request's signature cannot be read: {exc}") from exc
    if not verified:
        raise ValueError(
            "The request's signature does not match the service provider's signing certificate."
        )


# ---------------------------------------------------------------------------------------------
# Routes

router = APIRouter(include_in_schema=False)

_STYLE = """body{font-family:system-ui,sans-serif;background:#eef1f6;margin:0;display:grid;
place-items:center;min-height:100vh;color:#1f2430}
form{background:#fff;padding:32px;border-radius:12px;box-shadow:0 4px 24px #0001;width:360px}
h1{font-size:20px;margin:0 0 4px}p{color:#5d6475;font-size:14px;margin:0 0 20px}
label{display:block;font-size:13px;font-weight:600;margin:12px 0 4px}
input{width:100%;box-sizing:border-box;padding:10px;border:1px solid #cfd3dc;border-radius:6px;
font-size:14px}
button{margin-top:20px;width:100%;padding:11px;border:0;border-radius:6px;background:#2f6f4f;
color:#fff;font-size:15px;font-weight:600;cursor:pointer}"""

_SIGN_IN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in (development SAML IdP)</title>
<style>{style}</style></head><body>
<form method="post" action="{sso_path}">
<h1>Sign in to your company</h1>
<p>Development stand-in for a SAML identity provider (Okta, Entra ID). Any person works.</p>
<input type="hidden" name="SAMLRequest" value="{saml_request}">
<input type="hidden" name="RelayState" value="{relay_state}">
{signature_fields}
<label for="email">Email</label><input id="email" name="email" type="email" required>
<label for="given_name">First name</label><input id="given_name" name="given_name" required>
<label for="family_name">Last name</label><input id="family_name" name="family_name" required>
<button type="submit">Continue</button>
</form></body></html>"""

# The HTTP-POST binding (SAML Bindings 3.5): the browser carries the response to the ACS URL.
_AUTO_POST_SCRIPT = "document.forms[0].submit();"
_POST = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signing you in</title>
<style>{style}</style></head><body>
<form method="post" action="{acs_url}">
<h1>Signing you in…</h1>
<p>Sending your sign-in back to the service.</p>
<input type="hidden" name="SAMLResponse" value="{saml_response}">
<input type="hidden" name="RelayState" value="{relay_state}">
<button type="submit">Continue</button>
</form><script>{script}</script></body></html>"""


def _post_policy() -> str:
    digest = base64.b64encode(hashlib.sha256(_AUTO_POST_SCRIPT.encode()).digest()).decode()
    return (
        f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
        "form-action 'self' http://127.0.0.1:* http://localhost:*; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def _key(request: Request) -> SigningKey:
    """The stand-in's key, kept beside the dev stack's other data (the mailbox's folder)."""
    if not hasattr(request.app.state, "saml_idp_key"):
        folder = Path(request.app.state.settings.mail.dev_mailbox_path).parent / "saml-idp"
        request.app.state.saml_idp_key = load_signing_key(folder)
    key: SigningKey = request.app.state.saml_idp_key
    return key


def _base_url(request: Request) -> str:
    base: str = request.app.state.settings.public_url.rstrip("/")
    return base


def _metadata(request: Request, *, signed_requests: bool) -> Response:
    base = _base_url(request)
    entity_path, sso_path = (
        (SIGNED_ENTITY_PATH, SIGNED_SSO_PATH) if signed_requests else (ENTITY_PATH, SSO_PATH)
    )
    document = metadata_xml(
        entity_id=base + entity_path,
        sso_url=base + sso_path,
        certificate_base64=_key(request).certificate_base64,
        want_signed_requests=signed_requests,
    )
    return Response(document, media_type="application/samlmetadata+xml")


@router.get(ENTITY_PATH)
async def idp_metadata(request: Request) -> Response:
    """The identity provider's metadata (its entity ID is this URL)."""
    return _metadata(request, signed_requests=False)


@router.get(SIGNED_ENTITY_PATH)
async def signed_requests_idp_metadata(request: Request) -> Response:
    """The metadata of the application that requires signed requests (its entity ID is this
    URL; ``WantAuthnRequestsSigned="true"``)."""
    return _metadata(request, signed_requests=True)


def _refused(reason: str) -> HTMLResponse:
    return HTMLResponse(f"<h1>Invalid SAML request</h1><p>{html.escape(reason)}</p>", 400)


async def _check_signed(
    request: Request, saml_request: str, relay_state: str, sig_alg: str, signature: str
) -> None:
    """Check a request to the signed-requests application against the service provider's
    certificate (the pool's, as an administrator uploads it). Raises: ValueError."""
    certificate = await request.app.state.resources.cognito.get_signing_certificate()
    await asyncio.to_thread(
        check_request_signature,
        saml_request=saml_request,
        relay_state=relay_state,
        sig_alg=sig_alg,
        signature=signature,
        certificate=certificate,
    )


async def _sign_in_page(
    request: Request,
    *,
    sso_path: str,
    saml_request: str,
    relay_state: str,
    signature: tuple[str, str] | None,
) -> HTMLResponse:
    try:
        await asyncio.to_thread(
            read_request, _key(request), _base_url(request), saml_request, sso_path
        )
        if signature is not None:
            await _check_signed(request, saml_request, relay_state, *signature)
    except ValueError as exc:
        return _refused(str(exc))
    fields = (
        f'<input type="hidden" name="SigAlg" value="{html.escape(signature[0])}">\n'
        f'<input type="hidden" name="Signature" value="{html.escape(signature[1])}">'
        if signature is not None
        else ""
    )
    return HTMLResponse(
        _SIGN_IN.format(
            style=_STYLE,
            sso_path=sso_path,
            saml_request=html.escape(saml_request),
            relay_state=html.escape(relay_state),
            signature_fields=fields,
        )
    )


@router.get(SSO_PATH, response_class=HTMLResponse)
async def sign_in_page(request: Request, SAMLRequest: str, RelayState: str = "") -> HTMLResponse:  # noqa: N803 - SAML's parameter names
    """The sign-in page of an AuthnRequest sent with the HTTP-Redirect binding."""
    return await _sign_in_page(
        request, sso_path=SSO_PATH, saml_request=SAMLRequest, relay_state=RelayState, signature=None
    )


@router.get(SIGNED_SSO_PATH, response_class=HTMLResponse)
async def signed_requests_sign_in_page(
    request: Request,
    SAMLRequest: str,  # noqa: N803 - SAML's parameter names
    RelayState: str = "",  # noqa: N803
    SigAlg: str = "",  # noqa: N803
    Signature: str = "",  # noqa: N803
) -> HTMLResponse:
    """The sign-in page of the application that requires signed requests: the request's
    signature is checked first (refused with the reason)."""
    return await _sign_in_page(
        request,
        sso_path=SIGNED_SSO_PATH,
        saml_request=SAMLRequest,
        relay_state=RelayState,
        signature=(SigAlg, Signature),
    )


async def _signed_in(
    request: Request,
    *,
    entity_path: str,
    sso_path: str,
    saml_request: str,
    relay_state: str,
    person: Person,
    signature: tuple[str, str] | None,
) -> HTMLResponse:
    """A signed Response to the request for ``person``, posted by the browser to the
    request's ACS URL (its own page, submitted by a script its policy allows by hash)."""
    key, base = _key(request), _base_url(request)
    try:
        asked = await asyncio.to_thread(read_request, key, base, saml_request, sso_path)
        if signature is not None:
            await _check_signed(request, saml_request, relay_state, *signature)
    except ValueError as exc:
        return _refused(str(exc))
    document = await asyncio.to_thread(
        signed_response,
        key,
        base_url=base,
        request_id=asked.id,
        sp_entity_id=asked.issuer,
        acs_url=asked.acs_url,
        person=person,
        entity_path=entity_path,
    )
    page = _POST.format(
        style=_STYLE,
        acs_url=html.escape(asked.acs_url),
        saml_response=base64.b64encode(document.encode()).decode(),
        relay_state=html.escape(relay_state),
        script=_AUTO_POST_SCRIPT,
    )
    return HTMLResponse(page, headers={"Content-Security-Policy": _post_policy()})


def _person(email: str, given_name: str, family_name: str) -> Person:
    return Person(email.strip().lower(), given_name.strip(), family_name.strip())


@router.post(SSO_PATH, response_class=HTMLResponse)
async def sign_in(
    request: Request,
    SAMLRequest: Annotated[str, Form()],  # noqa: N803 - SAML's parameter names
    email: Annotated[str, Form()],
    given_name: Annotated[str, Form()],
    family_name: Annotated[str, Form()],
    RelayState: Annotated[str, Form()] = "",  # noqa: N803
) -> HTMLResponse:
    """Sign the person in (see :func:`_signed_in`)."""
    return await _signed_in(
        request,
        entity_path=ENTITY_PATH,
        sso_path=SSO_PATH,
        saml_request=SAMLRequest,
        relay_state=RelayState,
        person=_person(email, given_name, family_name),
        signature=None,
    )


@router.post(SIGNED_SSO_PATH, response_class=HTMLResponse)
async def signed_requests_sign_in(
    request: Request,
    SAMLRequest: Annotated[str, Form()],  # noqa: N803 - SAML's parameter names
    email: Annotated[str, Form()],
    given_name: Annotated[str, Form()],
    family_name: Annotated[str, Form()],
    RelayState: Annotated[str, Form()] = "",  # noqa: N803
    SigAlg: Annotated[str, Form()] = "",  # noqa: N803
    Signature: Annotated[str, Form()] = "",  # noqa: N803
) -> HTMLResponse:
    """Sign the person in at the application that requires signed requests: the request's
    signature (carried from the page) is checked again."""
    return await _signed_in(
        request,
        entity_path=SIGNED_ENTITY_PATH,
        sso_path=SIGNED_SSO_PATH,
        saml_request=SAMLRequest,
        relay_state=RelayState,
        person=_person(email, given_name, family_name),
        signature=(SigAlg, Signature),
    )
