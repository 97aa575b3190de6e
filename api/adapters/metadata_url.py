"""Fetching an identity provider's SAML metadata from the URL an account gave (README "SAML
single sign-on").

The URL is typed by a customer's administrator, so fetching it must not let them reach what
only the API's network can (server-side request forgery, OWASP SSRF Prevention Cheat Sheet):
outside the development stand-ins it must be ``https``, every address its host resolves to must
be a public one (no loopback, private, link-local such as the cloud metadata service at
169.254.169.254, shared or reserved range, and no NAT64 or 6to4 address, whose embedded IPv4
address a translator or relay would reach for us), and the request goes to the address that
was checked (the TLS connection still verifies the host's certificate by name, through SNI), so
a second DNS answer cannot point it elsewhere. Redirects are not followed, the body is cut at a
size (a gzip or deflate body is decoded piece by piece within that size, so a small
compressed body that expands enormously is refused without being expanded), and the whole
fetch has a timeout.

With the stand-ins (``allow_loopback``) plain ``http`` and this machine's loopback addresses are
allowed too, for the dev stack's identity provider, and nothing else: its addresses are checked
the same way, but the request is not pinned to the checked address (the stand-ins' routing in
the tests goes by host name).

Nothing outside ``api/adapters`` speaks HTTP to identity providers.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import zlib
from urllib.parse import urlsplit, urlunsplit

import httpx

from api.kernel.config import Settings
from api.kernel.http.vendor_budget import within_budget

FETCH_TIMEOUT_S = 5.0

_EMBEDDING_IPV4 = (
    ipaddress.ip_network("64:ff9b::/96"),  # NAT64 well-known prefix (RFC 6052)
    ipaddress.ip_network("64:ff9b:1::/48"),  # NAT64 local-use prefix (RFC 8215)
    ipaddress.ip_network("2002::/16"),  # 6to4 (RFC 3056)
    ipaddress.ip_network("::/96"),  # IPv4-compatible, deprecated (RFC 4291 2.5.5.1)
)
"""IPv6 ranges whose addresses stand for an IPv4 address that a translator or relay reaches
(Python's ``is_global`` calls them global): never fetched, whatever IPv4 address they carry."""

_CODINGS = ("identity", "gzip", "x-gzip", "deflate")
_ACCEPT_ENCODING = "gzip, deflate"


class MetadataUrlRefused(Exception):
    """The URL is not one the console fetches; ``message`` says why, for the administrator."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MetadataUnreachable(Exception):
    """The fetch failed (no answer, an error status, a redirect, too large); ``message`` says
    how, for the administrator."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def resolve_host(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (the system's resolver, as the connection would),
    sorted. Raises OSError when it does not resolve."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def is_fetchable(address: str, *, allow_loopback: bool = False) -> bool:
    """Whether the console may fetch from ``address`` (an IPv4 or IPv6 address, maybe with a
    ``%zone``): a public unicast address, or with ``allow_loopback`` a loopback one; never
    one of :data:`_EMBEDDING_IPV4`. An IPv4-mapped IPv6 address counts as its IPv4 address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif any(ip in network for network in _EMBEDDING_IPV4) and not ip.is_loopback:
            return False
    if allow_loopback and ip.is_loopback:
        return True
    return ip.is_global and not ip.is_multicast


def _not_public(host: str) -> MetadataUrlRefused:
    return MetadataUrlRefused(
        f"{host} is not a public address: the metadata URL must be reachable from the internet."
    )


class _BoundedDecoder:
    """Decodes a body of one content coding (``identity``, ``gzip``, ``deflate``: RFC 9110
    8.4.1) chunk by chunk, never producing more than ``limit`` bytes in all; zlib's
    ``max_length`` stops each step at what is left, so a compression bomb is never expanded
    past the limit."""

    def __init__(self, coding: str, limit: int) -> None:
        self._coding = coding
        self._limit = limit
        self._produced = 0
        self._first = True
        self._zlib: zlib._Decompress | None = None
        if coding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            self._zlib = zlib.decompressobj()

    def _too_large(self) -> MetadataUnreachable:
        size = f"{self._limit // 1024} KB"
        if self._zlib is None:
            return MetadataUnreachable(
                f"The metadata URL sent more than {size}: it is not a metadata document."
            )
        return MetadataUnreachable(
            f"The metadata URL sent a compressed document that expands to more than {size}: "
            "it is not a metadata document."
        )

    def feed(self, chunk: bytes) -> bytes:
        """The decoded bytes of ``chunk``. Raises MetadataUnreachable (over the limit, or not
        the coding it claims)."""
        room = self._limit - self._produced
        if self._zlib is None:
            out = chunk
        else:
            try:
                out = self._zlib.decompress(chunk, room + 1)
            except zlib.error as exc:
                if self._coding == "deflate" and self._first:
                    # "deflate" is zlib-wrapped (RFC 9110 8.4.1.2), but some servers send the
                    # raw deflate stream: read it as such, as browsers do.
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._first = False
                    return self.feed(chunk)
                raise MetadataUnreachable(
                    f"The metadata URL sent a body that is not valid {self._coding} data."
                ) from exc
        self._first = False
        if len(out) > room:
            raise self._too_large()
        self._produced += len(out)
        return out

    def finish(self) -> None:
        """Check the body ended where its coding ends. Raises MetadataUnreachable."""
        if self._zlib is not None and not self._zlib.eof:
            raise MetadataUnreachable(f"The metadata URL sent an incomplete {self._coding} body.")


class MetadataFetcher:
    """Fetches metadata documents; holds only its settings (each fetch has its own client).

    Args:
        max_bytes: the largest body taken, decoded (and the largest body read as sent).
        timeout_s: for the whole fetch (resolution, connection, body).
        allow_loopback: the development stand-ins are on: ``http`` and loopback addresses
            are allowed besides public ones (never in production: ``Settings.check``).
        transport: an httpx transport (tests).
    """

    def __init__(
        self,
        *,
        max_bytes: int,
        timeout_s: float = FETCH_TIMEOUT_S,
        allow_loopback: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.allow_loopback = allow_loopback
        self._transport = transport

    @classmethod
    def from_settings(cls, settings: Settings, *, max_bytes: int) -> MetadataFetcher:
        """The fetcher for ``settings`` (loopback addresses only with the stand-ins)."""
        return cls(max_bytes=max_bytes, allow_loopback=settings.dev_stand_ins)

    async def _checked_addresses(self, host: str, port: int) -> list[str]:
        """The addresses of ``host``, every one of them fetchable.

        Raises: MetadataUrlRefused, MetadataUnreachable (the name does not resolve).
        """
        try:
            addresses = await resolve_host(host, port)
        except OSError as exc:
            raise MetadataUnreachable(f"{host} could not be found in DNS.") from exc
        if not addresses or not all(
            is_fetchable(a, allow_loopback=self.allow_loopback) for a in addresses
        ):
            raise _not_public(host)
        return addresses

    async def _pinned(self, url: str) -> tuple[str, str, str]:
        """(the URL with the host replaced by a checked public address, the host, the host
        header) for a production fetch.

        Raises: MetadataUrlRefused, MetadataUnreachable (the name does not resolve).
        """
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or 443
        address = (await self._checked_addresses(host, port))[0]
        literal = f"[{address}]" if ":" in address else address
        netloc = f"{literal}:{port}"
        host_header = parts.netloc.rsplit("@", 1)[-1]
        return urlunsplit(("https", netloc, parts.path or "/", parts.query, "")), host, host_header

    def check(self, url: str) -> None:
        """Refuse a URL the console never fetches, before any network use.

        Raises: MetadataUrlRefused.
        """
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - a port that is no number raises here
        except ValueError as exc:
            raise MetadataUrlRefused("The metadata URL is not a valid URL.") from exc
        schemes = ("https", "http") if self.allow_loopback else ("https",)
        if parts.scheme not in schemes or not parts.hostname:
            raise MetadataUrlRefused("The metadata URL must be an https:// address.")
        if parts.username or parts.password:
            raise MetadataUrlRefused("The metadata URL must not carry a user name or password.")
        try:
            literal = ipaddress.ip_address(parts.hostname)
        except ValueError:
            return  # a name: its addresses are checked when it is resolved
        if not is_fetchable(str(literal), allow_loopback=self.allow_loopback):
            raise _not_public(parts.hostname)

    async def fetch(self, url: str) -> bytes:
        """GET ``url`` and return its body, decoded (at most ``max_bytes``).

        Raises:
            MetadataUrlRefused: the URL is not one the console fetches (see the module).
            MetadataUnreachable: no answer in time, a status other than 200 (redirects
                included), a body over ``max_bytes`` (decoded or as sent), or a content
                coding other than gzip or deflate.
        """
        self.check(url)
        headers = {
            "Accept": "application/samlmetadata+xml, application/xml, text/xml",
            "Accept-Encoding": _ACCEPT_ENCODING,
        }
        extensions: dict[str, str] = {}
        target = url
        try:
            async with asyncio.timeout(self.timeout_s), within_budget():
                if self.allow_loopback:
                    parts = urlsplit(url)
                    await self._checked_addresses(parts.hostname or "", parts.port or 80)
                else:
                    target, host, headers["Host"] = await self._pinned(url)
                    extensions["sni_hostname"] = host
                async with (
                    httpx.AsyncClient(
                        timeout=self.timeout_s, follow_redirects=False, transport=self._transport
                    ) as client,
                    client.stream("GET", target, headers=headers, extensions=extensions) as answer,
                ):
                    if answer.status_code != 200:
                        where = " (a redirect)" if answer.is_redirect else ""
                        raise MetadataUnreachable(
                            f"The metadata URL answered HTTP {answer.status_code}{where}."
                        )
                    return await self._body(answer)
        except TimeoutError as exc:
            raise MetadataUnreachable("The metadata URL did not answer in time.") from exc
        except httpx.HTTPError as exc:
            raise MetadataUnreachable(
                f"The metadata URL could not be reached ({type(exc).__name__})."
            ) from exc

    async def _body(self, answer: httpx.Response) -> bytes:
        """The body of ``answer`` as sent, decoded within ``max_bytes`` (httpx's own decoding
        expands each chunk whole, so the raw bytes are read and decoded here)."""
        coding = answer.headers.get("Content-Encoding", "identity").strip().lower() or "identity"
        if coding not in _CODINGS:
            raise MetadataUnreachable(
                f"The metadata URL sent its document encoded as '{coding}': send it "
                "uncompressed, or with gzip or deflate."
            )
        decoder = _BoundedDecoder(coding, self.max_bytes)
        body = bytearray()
        received = 0
        async for chunk in answer.aiter_raw():
            received += len(chunk)
            if received > self.max_bytes:
                raise MetadataUnreachable(
                    "The metadata URL sent more than "
                    f"{self.max_bytes // 1024} KB: it is not a metadata document."
                )
            body += decoder.feed(chunk)
        decoder.finish()
        return bytes(body)
