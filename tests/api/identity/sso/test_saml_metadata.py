"""Checking an identity provider's SAML metadata, and fetching it by URL (README "SAML single
sign-on"): each problem is refused with a message naming it; a URL that would reach inside
the API's network is never fetched."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import respx

from api.adapters import metadata_url
from api.adapters.metadata_url import MetadataFetcher, MetadataUnreachable, MetadataUrlRefused
from api.identity.sso.errors import InvalidSamlMetadata
from api.identity.sso.saml_metadata import MAX_METADATA_BYTES, MAX_METADATA_DEPTH, parse_metadata
from tests.api.identity.sso.saml_support import (
    IDP_ENTITY_ID,
    IDP_SSO_URL,
    idp_metadata,
    signing_key,
)


def resolving(names: dict[str, list[str]]) -> Callable[[str, int], Awaitable[list[str]]]:
    """A resolver answering ``names`` (what a hostile nameserver may answer)."""

    async def resolve(host: str, port: int) -> list[str]:
        return names[host]

    return resolve


def refusal(document: str | bytes) -> str:
    with pytest.raises(InvalidSamlMetadata) as refused:
        parse_metadata(document)
    return refused.value.message


class TestParseMetadata:
    def test_reads_the_identity_provider(self) -> None:
        metadata = parse_metadata(idp_metadata(days_left=90))
        assert metadata.entity_id == IDP_ENTITY_ID
        assert metadata.sso_url == IDP_SSO_URL
        assert metadata.certificate_expires_at - datetime.now(UTC) == pytest.approx(
            timedelta(days=90), abs=timedelta(minutes=5)
        )

    def test_one_identity_provider_inside_entities_descriptor(self) -> None:
        body = idp_metadata().split("?>", 1)[1]
        wrapped = (
            '<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">'
            f"{body}</md:EntitiesDescriptor>"
        )
        assert parse_metadata(wrapped).entity_id == IDP_ENTITY_ID

    def test_not_xml(self) -> None:
        assert refusal("this is not xml") == (
            "The metadata is not a valid XML document. Upload the identity provider's SAML "
            "metadata file as it was downloaded."
        )

    def test_other_xml(self) -> None:
        assert refusal("<html><body>Sign in</body></html>") == (
            "The metadata has no EntityDescriptor: it is not SAML 2.0 metadata."
        )

    def test_entity_expansion_is_refused(self) -> None:
        bomb = (
            '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
            '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" '
            'entityID="&b;"/>'
        )
        assert refusal(bomb).startswith("The metadata is not a valid XML document.")

    def test_service_provider_metadata(self) -> None:
        sp = (
            '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" '
            'entityID="urn:amazon:cognito:sp:us-east-1_x"><md:SPSSODescriptor '
            'protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/>'
            "</md:EntityDescriptor>"
        )
        assert refusal(sp) == (
            "The metadata has no IDPSSODescriptor: it does not describe a SAML identity "
            "provider (is it the metadata of a service provider?)."
        )

    def test_no_entity_id(self) -> None:
        assert refusal(idp_metadata().replace(f'entityID="{IDP_ENTITY_ID}"', "")) == (
            "The metadata's EntityDescriptor has no entityID."
        )

    def test_no_signing_certificate(self) -> None:
        document = idp_metadata().replace('use="signing"', 'use="encryption"')
        assert refusal(document) == (
            "The metadata has no signing certificate (a KeyDescriptor with an X509Certificate "
            "in the IDPSSODescriptor)."
        )

    def test_unreadable_certificate(self) -> None:
        document = idp_metadata().replace(signing_key().certificate_base64, "bm90IGEgY2VydA==")
        assert refusal(document) == (
            "The signing certificate in the metadata cannot be read (an X509Certificate that is "
            "not a base64 DER certificate)."
        )

    def test_expired_certificate(self) -> None:
        expired = datetime.now(UTC) - timedelta(days=3)
        assert refusal(idp_metadata(days_left=-3)) == (
            f"The identity provider's signing certificate expired on {expired:%Y-%m-%d}: add a "
            "new certificate at the identity provider and use its new metadata."
        )

    def test_a_valid_certificate_beside_an_expired_one_counts(self) -> None:
        old = signing_key(-3).certificate_base64
        document = idp_metadata(days_left=200).replace(
            "</md:KeyDescriptor>",
            '</md:KeyDescriptor><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data>'
            f"<ds:X509Certificate>{old}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>"
            "</md:KeyDescriptor>",
            1,
        )
        expires = parse_metadata(document).certificate_expires_at
        assert expires - datetime.now(UTC) > timedelta(days=199)

    def test_no_redirect_or_post_endpoint(self) -> None:
        document = idp_metadata().replace("HTTP-Redirect", "SOAP").replace("HTTP-POST", "PAOS")
        assert refusal(document) == (
            "The metadata has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding."
        )

    def test_several_identity_providers(self) -> None:
        body = idp_metadata().split("?>", 1)[1]
        other = body.replace(IDP_ENTITY_ID, "https://other.example-idp.com/")
        wrapped = (
            '<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">'
            f"{body}{other}</md:EntitiesDescriptor>"
        )
        assert refusal(wrapped) == (
            "The metadata describes 2 identity providers: use the metadata of your own "
            "identity provider's application."
        )

    def test_too_large(self) -> None:
        assert refusal(b" " * (MAX_METADATA_BYTES + 1)).startswith(
            "The metadata is larger than 256 KB"
        )


class TestMetadataUrl:
    """Outside the stand-ins, only https URLs of public addresses are fetched (OWASP SSRF)."""

    @pytest.mark.parametrize(
        ("url", "message"),
        [
            (
                "http://idp.example-idp.com/metadata",
                "The metadata URL must be an https:// address.",
            ),
            ("file:///etc/passwd", "The metadata URL must be an https:// address."),
            ("https://", "The metadata URL must be an https:// address."),
            (
                "https://admin:secret@idp.example-idp.com/m",
                "The metadata URL must not carry a user name or password.",
            ),
            (
                "https://169.254.169.254/latest/meta-data/",
                "169.254.169.254 is not a public address: the metadata URL must be reachable "
                "from the internet.",
            ),
            (
                "https://10.0.0.5/metadata",
                "10.0.0.5 is not a public address: the metadata URL must be reachable from "
                "the internet.",
            ),
            (
                "https://[::1]/metadata",
                "::1 is not a public address: the metadata URL must be reachable from the "
                "internet.",
            ),
            (
                "https://[::ffff:127.0.0.1]/metadata",
                "::ffff:127.0.0.1 is not a public address: the metadata URL must be reachable "
                "from the internet.",
            ),
        ],
    )
    async def test_refused_before_any_request(self, url: str, message: str) -> None:
        fetcher = MetadataFetcher(max_bytes=1024)
        with respx.mock(assert_all_called=False) as router:
            route = router.route().respond(200, text=idp_metadata())
            with pytest.raises(MetadataUrlRefused) as refused:
                await fetcher.fetch(url)
            assert not route.called
        assert refused.value.message == message

    async def test_a_name_resolving_to_loopback_is_refused(self) -> None:
        fetcher = MetadataFetcher(max_bytes=1024)
        with respx.mock(assert_all_called=False) as router:
            route = router.route().respond(200, text=idp_metadata())
            with pytest.raises(MetadataUrlRefused) as refused:
                await fetcher.fetch("https://localhost/metadata")
            assert not route.called
        assert refused.value.message.startswith("localhost is not a public address")

    async def test_redirects_are_not_followed(self) -> None:
        fetcher = MetadataFetcher(max_bytes=4096, allow_loopback=True)
        with respx.mock() as router:
            router.get("https://idp.example-idp.com/m").respond(
                302, headers={"Location": "http://169.254.169.254/"}
            )
            with pytest.raises(MetadataUnreachable) as failed:
                await fetcher.fetch("https://idp.example-idp.com/m")
        assert failed.value.message == "The metadata URL answered HTTP 302 (a redirect)."

    async def test_body_is_cut_at_the_limit(self) -> None:
        fetcher = MetadataFetcher(max_bytes=2048, allow_loopback=True)
        with respx.mock() as router:
            router.get("https://idp.example-idp.com/m").respond(200, content=b"x" * 5000)
            with pytest.raises(MetadataUnreachable) as failed:
                await fetcher.fetch("https://idp.example-idp.com/m")
        assert failed.value.message == (
            "The metadata URL sent more than 2 KB: it is not a metadata document."
        )

    async def test_unreachable(self) -> None:
        fetcher = MetadataFetcher(max_bytes=2048, allow_loopback=True)
        with respx.mock() as router:
            router.get("https://idp.example-idp.com/m").mock(
                side_effect=httpx.ConnectError("refused")
            )
            with pytest.raises(MetadataUnreachable) as failed:
                await fetcher.fetch("https://idp.example-idp.com/m")
        assert failed.value.message == "The metadata URL could not be reached (ConnectError)."


class TestAddressesThatEmbedIpv4:
    """NAT64 (RFC 6052, RFC 8215) and 6to4 (RFC 3056) addresses carry an IPv4 address that a
    translator or relay reaches for us, a private one included: never fetched."""

    @pytest.mark.parametrize(
        "address",
        [
            "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254, the cloud metadata service
            "64:ff9b::a00:5",  # NAT64 of 10.0.0.5
            "64:ff9b:1::a00:5",  # the local-use NAT64 prefix
            "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
            "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        ],
    )
    async def test_refused_before_any_request(self, address: str) -> None:
        fetcher = MetadataFetcher(max_bytes=1024)
        with respx.mock(assert_all_called=False) as router:
            route = router.route().respond(200, text=idp_metadata())
            with pytest.raises(MetadataUrlRefused) as refused:
                await fetcher.fetch(f"https://[{address}]/metadata")
            assert not route.called
        assert refused.value.message == (
            f"{address} is not a public address: the metadata URL must be reachable from the "
            "internet."
        )

    async def test_a_name_resolving_to_nat64_is_refused(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        nat64 = resolving({"idp.example-idp.com": ["64:ff9b::a00:5"]})
        monkeypatch.setattr(metadata_url, "resolve_host", nat64)
        fetcher = MetadataFetcher(max_bytes=1024)
        with respx.mock(assert_all_called=False) as router:
            route = router.route().respond(200, text=idp_metadata())
            with pytest.raises(MetadataUrlRefused) as refused:
                await fetcher.fetch("https://idp.example-idp.com/metadata")
            assert not route.called
        assert refused.value.message.startswith("idp.example-idp.com is not a public address")


class TestInDevelopment:
    """With the stand-ins on, plain http and this machine (loopback) are allowed besides public
    addresses, and nothing else: not the private ranges, nor link-local (the cloud metadata
    service), nor NAT64 or 6to4."""

    @pytest.mark.parametrize(
        "url",
        [
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.5/metadata",
            "http://192.168.1.1/metadata",
            "http://[fd00::1]/metadata",
            "http://[64:ff9b::a9fe:a9fe]/metadata",
            "http://0.0.0.0/metadata",
        ],
    )
    async def test_private_addresses_are_refused(self, url: str) -> None:
        fetcher = MetadataFetcher(max_bytes=1024, allow_loopback=True)
        with respx.mock(assert_all_called=False) as router:
            route = router.route().respond(200, text=idp_metadata())
            with pytest.raises(MetadataUrlRefused) as refused:
                await fetcher.fetch(url)
            assert not route.called
        assert "is not a public address" in refused.value.message

    async def test_a_name_resolving_to_a_private_address_is_refused(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        private = resolving({"intranet.example-idp.com": ["10.1.2.3"]})
        monkeypatch.setattr(metadata_url, "resolve_host", private)
        fetcher = MetadataFetcher(max_bytes=1024, allow_loopback=True)
        with respx.mock(assert_all_called=False) as router:
            route = router.route().respond(200, text=idp_metadata())
            with pytest.raises(MetadataUrlRefused):
                await fetcher.fetch("http://intranet.example-idp.com/metadata")
            assert not route.called

    @pytest.mark.parametrize(
        "url",
        [
            "http://127.0.0.1:8000/dev/saml-idp/metadata",
            "http://[::1]:8000/m",
            "http://localhost:8000/m",
        ],
    )
    async def test_loopback_is_fetched(self, url: str) -> None:
        fetcher = MetadataFetcher(max_bytes=100_000, allow_loopback=True)
        with respx.mock() as router:
            router.get(url).respond(200, text=idp_metadata())
            assert await fetcher.fetch(url) == idp_metadata().encode()


class TestCompressedBodies:
    """A body sent gzip- or deflate-encoded is decoded within the size limit: a small
    compressed body that expands enormously (a 'zip bomb') is refused without being expanded."""

    async def test_gzip_is_decoded(self) -> None:
        fetcher = MetadataFetcher(max_bytes=MAX_METADATA_BYTES, allow_loopback=True)
        document = idp_metadata().encode()
        with respx.mock() as router:
            router.get("http://127.0.0.1/m").respond(
                200, content=gzip.compress(document), headers={"Content-Encoding": "gzip"}
            )
            assert await fetcher.fetch("http://127.0.0.1/m") == document

    @pytest.mark.parametrize("raw", [False, True])
    async def test_deflate_is_decoded(self, raw: bool) -> None:
        fetcher = MetadataFetcher(max_bytes=MAX_METADATA_BYTES, allow_loopback=True)
        document = idp_metadata().encode()
        packer = zlib.compressobj(wbits=-15 if raw else 15)
        body = packer.compress(document) + packer.flush()
        with respx.mock() as router:
            router.get("http://127.0.0.1/m").respond(
                200, content=body, headers={"Content-Encoding": "deflate"}
            )
            assert await fetcher.fetch("http://127.0.0.1/m") == document

    async def test_a_gzip_bomb_is_refused_without_expanding_it(self) -> None:
        bomb = gzip.compress(b"<" * (200 * 1024 * 1024))  # 200 MB in about 200 KB
        assert len(bomb) < MAX_METADATA_BYTES

        def serve(request: httpx.Request) -> httpx.Response:
            # As a server sends it: the compressed bytes in 64 KB pieces, never decoded here.
            pieces = [bomb[i : i + 65536] for i in range(0, len(bomb), 65536)]
            return httpx.Response(
                200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(b"".join(pieces))
            )

        fetcher = MetadataFetcher(
            max_bytes=MAX_METADATA_BYTES, allow_loopback=True, transport=httpx.MockTransport(serve)
        )
        tracemalloc.start()
        try:
            with pytest.raises(MetadataUnreachable) as refused:
                await fetcher.fetch("http://127.0.0.1/m")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 16 * 1024 * 1024, f"{peak} bytes were held while reading it"
        assert refused.value.message == (
            "The metadata URL sent a compressed document that expands to more than 256 KB: it "
            "is not a metadata document."
        )

    async def test_an_unknown_encoding_is_refused(self) -> None:
        fetcher = MetadataFetcher(max_bytes=MAX_METADATA_BYTES, allow_loopback=True)
        with respx.mock() as router:
            router.get("http://127.0.0.1/m").respond(
                200, content=b"\x00\x01", headers={"Content-Encoding": "br"}
            )
            with pytest.raises(MetadataUnreachable) as refused:
                await fetcher.fetch("http://127.0.0.1/m")
        assert refused.value.message == (
            "The metadata URL sent its document encoded as 'br': send it uncompressed, or with "
            "gzip or deflate."
        )


class TestHostileDocuments:
    def test_deep_nesting_is_refused_with_a_message(self) -> None:
        # Well within the size limit, and far deeper than any metadata: parsing it element by
        # element must not recurse into a RecursionError.
        depth = 30_000
        nested = "<a>" * depth + "</a>" * depth
        document = (
            '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" '
            f'entityID="x"><md:Extensions>{nested}</md:Extensions></md:EntityDescriptor>'
        )
        assert len(document.encode()) < MAX_METADATA_BYTES
        assert refusal(document) == (
            f"The metadata nests its elements more than {MAX_METADATA_DEPTH} deep: it is not "
            "an identity provider's metadata."
        )

    def test_nesting_just_under_the_limit_is_read(self) -> None:
        extensions = "<x:a xmlns:x='urn:x'>" * 20 + "</x:a>" * 20
        document = idp_metadata().replace(
            "<md:IDPSSODescriptor",
            f"<md:Extensions>{extensions}</md:Extensions><md:IDPSSODescriptor",
            1,
        )
        assert parse_metadata(document).entity_id == IDP_ENTITY_ID
