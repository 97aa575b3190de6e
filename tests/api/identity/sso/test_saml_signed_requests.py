"""What identity providers publish and need beyond the schema (README "SAML single sign-on"):
metadata asking for signed sign-in requests (``WantAuthnRequestsSigned="true"``: Keycloak
realms, some Okta apps) has Cognito sign them (``RequestSigningAlgorithm`` ``rsa-sha256``) and
the set-up show the pool's signing certificate; Microsoft Entra ID's tenant-independent metadata
is refused. Both sides through the stand-ins: the dev identity provider's signed-requests
application refuses an unsigned or wrongly signed request, and signs people in otherwise."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from api.adapters.cognito import CognitoClient, IdentityProvider
from api.identity.sso.saml import ATTRIBUTES, provider_name_of
from api.identity.sso.saml_idp_needs import ENTRA_TENANT_METADATA_URL
from devstack.saml_idp import Person
from tests.api.conftest import REDIRECT_URI, Authorized, MakeUser, SignedIn, exchange
from tests.api.identity.sso.saml_support import idp_metadata
from tests.api.identity.sso.test_saml_connection import connect, saml_owner
from tests.api.identity.sso.test_saml_sign_in import at_identity_provider, post_to_acs

SIGNED_METADATA = "http://testserver/dev/saml-idp/signed-requests/metadata"
SIGNED_SSO = "/dev/saml-idp/signed-requests/sso"
NOT_SIGNED = "This application requires signed sign-in requests, and the request is not signed."


@pytest.fixture(autouse=True)
def _stand_ins_reachable(hosted_ui: object) -> None:
    """The API's calls to http://testserver (the metadata URL, the token endpoint) reach
    the in-process stand-ins."""


async def _to_identity_provider(client: httpx.AsyncClient, email: str) -> str:
    """'Sign in with SSO' with ``email``: where the hosted UI sends the browser (the
    identity provider's sign-in URL with the request)."""
    start = await client.post(
        "/web/session/authorize/sso", json={"email": email, "redirectUri": REDIRECT_URI}
    )
    assert start.status_code == 200, start.text
    to_idp = await client.get(start.json()["authorizeUrl"])
    assert to_idp.status_code == 302, to_idp.text
    location: str = to_idp.headers["location"]
    return location


async def _signed_connection(
    client: httpx.AsyncClient, make_user: MakeUser
) -> tuple[SignedIn, str, dict[str, Any]]:
    owner, domain = await saml_owner(client, make_user)
    saved = await client.put(
        "/web/sso/saml", headers=owner.headers, json={"metadataUrl": SIGNED_METADATA}
    )
    assert saved.status_code == 200, saved.text
    return owner, domain, saved.json()


def _pem_body(pem: str) -> str:
    return "".join(line for line in pem.strip().splitlines() if not line.startswith("-----"))


class TestSignedRequests:
    async def test_metadata_that_asks_for_them_turns_signing_on(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, _, connection = await _signed_connection(client, make_user)
        provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert provider["ProviderDetails"]["RequestSigningAlgorithm"] == "rsa-sha256"
        assert connection["signsRequests"] is True
        # The set-up shows the certificate the identity provider checks the requests with.
        certificate = await cognito.get_signing_certificate()
        assert connection["signingCertificate"].startswith("-----BEGIN CERTIFICATE-----\n")
        assert _pem_body(connection["signingCertificate"]) == certificate
        shown = (await client.get("/web/sso/saml", headers=owner.headers)).json()["connection"]
        assert shown["signingCertificate"] == connection["signingCertificate"]

        # Metadata that stops asking for them turns signing off again.
        saved = await connect(client, owner)
        assert saved.status_code == 200, saved.text
        assert (saved.json()["signsRequests"], saved.json()["signingCertificate"]) == (False, None)
        provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert "RequestSigningAlgorithm" not in provider["ProviderDetails"]

    async def test_unsigned_metadata_leaves_requests_unsigned(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        saved = await connect(client, owner, idp_metadata())
        assert saved.status_code == 200, saved.text
        assert (saved.json()["signsRequests"], saved.json()["signingCertificate"]) == (False, None)
        provider = await cognito.describe_identity_provider(provider_name_of(owner.account.id))
        assert "RequestSigningAlgorithm" not in provider["ProviderDetails"]

    async def test_the_identity_provider_signs_people_in_with_signed_requests(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain, _ = await _signed_connection(client, make_user)
        location = urlsplit(await _to_identity_provider(client, f"kim@{domain}"))
        query = parse_qs(location.query)
        assert query["SigAlg"] == ["http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"]
        assert query["Signature"][0]
        start = await client.post(
            "/web/session/authorize/sso",
            json={"email": f"kim@{domain}", "redirectUri": REDIRECT_URI},
        )
        at = await at_identity_provider(
            client,
            start.json()["authorizeUrl"],
            Person(f"kim@{domain}", "Kim", "Keycloak"),
            SIGNED_SSO,
        )
        returned = await post_to_acs(client, at)
        exchanged = await exchange(client, Authorized(returned["code"], returned["state"]))
        assert exchanged.status_code == 200, exchanged.text

    async def test_without_the_algorithm_the_identity_provider_refuses(
        self, client: httpx.AsyncClient, make_user: MakeUser, cognito: CognitoClient
    ) -> None:
        # What happened before: the provider made without RequestSigningAlgorithm. The
        # identity provider refuses every sign-in.
        owner, domain, _ = await _signed_connection(client, make_user)
        name = provider_name_of(owner.account.id)
        details = (await cognito.describe_identity_provider(name))["ProviderDetails"]
        unsigned = identity_provider_of_unsigned(details["MetadataFile"], name, [domain])
        await cognito.update_identity_provider(unsigned)
        location = await _to_identity_provider(client, f"kim@{domain}")
        assert "Signature=" not in location
        page = await client.get(location.removeprefix("http://testserver"))
        assert page.status_code == 400
        assert NOT_SIGNED in page.text
        # Posting the form without the page is refused the same way.
        request = parse_qs(urlsplit(location).query)
        posted = await client.post(
            SIGNED_SSO,
            data={
                "SAMLRequest": request["SAMLRequest"][0],
                "RelayState": request["RelayState"][0],
                "email": f"kim@{domain}",
                "given_name": "Kim",
                "family_name": "Keycloak",
            },
        )
        assert posted.status_code == 400
        assert NOT_SIGNED in posted.text

    async def test_a_request_signed_by_another_key_is_refused(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        _, domain, _ = await _signed_connection(client, make_user)
        location = urlsplit(await _to_identity_provider(client, f"kim@{domain}"))
        query = {k: v[0] for k, v in parse_qs(location.query).items()}
        # Someone else's key signs the same request (the string SAML Bindings 3.4.4.1 signs).
        signed = urlencode(
            [(k, query[k]) for k in ("SAMLRequest", "RelayState", "SigAlg")]
        ).encode()
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        query["Signature"] = base64.b64encode(
            other.sign(signed, padding.PKCS1v15(), hashes.SHA256())
        ).decode()
        forged = urlunsplit(("", "", location.path, urlencode(query), ""))
        page = await client.get(forged)
        assert page.status_code == 400
        assert "does not match the service provider&#x27;s signing certificate" in page.text


def identity_provider_of_unsigned(metadata: str, name: str, domains: list[str]) -> IdentityProvider:
    """The identity provider as it was created before request signing: no algorithm."""
    return IdentityProvider(
        name=name,
        metadata=metadata,
        identifiers=tuple(domains),
        attribute_mapping=dict(ATTRIBUTES),
    )


class TestEntraTenantIndependentMetadata:
    @pytest.mark.parametrize(
        "entity_id",
        [
            "https://sts.windows.net/{tenantid}/",
            "https://sts.windows.net/common/",
            "https://login.microsoftonline.com/organizations/v2.0",
        ],
    )
    async def test_is_refused_with_the_tenants_own_url(
        self, client: httpx.AsyncClient, make_user: MakeUser, entity_id: str
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        refused = await connect(client, owner, idp_metadata(entity_id=entity_id))
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "InvalidSamlMetadata"
        message = refused.json()["message"]
        assert message.startswith(
            f"This is Microsoft Entra ID's tenant-independent metadata (entity ID {entity_id})"
        )
        assert ENTRA_TENANT_METADATA_URL in message
        assert (await client.get("/web/sso/saml", headers=owner.headers)).json()[
            "connection"
        ] is None

    async def test_a_tenants_own_metadata_is_taken(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        owner, _ = await saml_owner(client, make_user)
        tenant = "https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/"
        saved = await connect(client, owner, idp_metadata(entity_id=tenant))
        assert saved.status_code == 200, saved.text
        assert saved.json()["idpEntityId"] == tenant
