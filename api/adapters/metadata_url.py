"""Fetching an identity provider's SAML metadata from the URL an account gave (README "SAML
single sign-on").

The URL is typed by a customer's administrator, so fetching it must not let them reach what
only the API's network can (server-side request forgery, OWASP SSRF Prevention Cheat Sheet):
outside the development stand-ins it must be ``https``, every address its host resolves to must
be a public one (no loopback, private, link-local such as the cloud metadata service at
169.254.169.254, shared or reserved range), and the request goes to the address that was
checked (the TLS connection still verifies the host's certificate by name, through SNI), so a
second DNS answer cannot point it elsewhere. Redirects are not followed, the body is cut at a
size, and the whole fetch has a timeout. With the stand-ins (``allow_private``) plain ``http``
to this machine is allowed, for the dev stack's identity provider.

Nothing outside ``api/adapters`` speaks HTTP to identity providers.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

import httpx

from api.config import Settings
from api.platform.vendor_budget import within_budget

FETCH_TIMEOUT_S = 5.0


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


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


class MetadataFetcher:
    """Fetches metadata documents; holds only its settings (each fetch has its own client).

    Args:
        max_bytes: the largest body taken.
        timeout_s: for the whole fetch (resolution, connection, body).
        allow_private: the development stand-ins are on: ``http`` and loopback or private
            addresses are allowed (never in production: ``Settings.check``).
        transport: an httpx transport (tests).
    """

    def __init__(
        self,
        *,
        max_bytes: int,
        timeout_s: float = FETCH_TIMEOUT_S,
        allow_private: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.allow_private = allow_private
        self._transport = transport

    @classmethod
    def from_settings(cls, settings: Settings, *, max_bytes: int) -> MetadataFetcher:
        """The fetcher for ``settings`` (private addresses only with the stand-ins)."""
        return cls(max_bytes=max_bytes, allow_private=settings.dev_stand_ins)

    async def _pinned(self, url: str) -> tuple[str, str, str]:
        """(the URL with the host replaced by a checked public address, the host, the host
        header) for a production fetch.

        Raises: MetadataUrlRefused, MetadataUnreachable (the name does not resolve).
        """
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or 443
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except OSError as exc:
            raise MetadataUnreachable(f"{host} could not be found in DNS.") from exc
        addresses = sorted({str(info[4][0]) for info in infos})
        if not addresses or not all(_is_public(a) for a in addresses):
            raise MetadataUrlRefused(
                f"{host} is not a public address: the metadata URL must be reachable from "
                "the internet."
            )
        address = addresses[0]
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
        schemes = ("https", "http") if self.allow_private else ("https",)
        if parts.scheme not in schemes or not parts.hostname:
            raise MetadataUrlRefused("The metadata URL must be an https:// address.")
        if parts.username or parts.password:
            raise MetadataUrlRefused("The metadata URL must not carry a user name or password.")
        if self.allow_private:
            return
        try:
            literal = ipaddress.ip_address(parts.hostname)
        except ValueError:
            return  # a name: its addresses are checked when it is resolved
        if not _is_public(str(literal)):
            raise MetadataUrlRefused(
                f"{parts.hostname} is not a public address: the metadata URL must be "
                "reachable from the internet."
            )

    async def fetch(self, url: str) -> bytes:
        """GET ``url`` and return its body (at most ``max_bytes``).

        Raises:
            MetadataUrlRefused: the URL is not one the console fetches (see the module).
            MetadataUnreachable: no answer in time, a status other than 200 (redirects
                included), or a body over ``max_bytes``.
        """
        self.check(url)
        headers = {"Accept": "application/samlmetadata+xml, application/xml, text/xml"}
        extensions: dict[str, str] = {}
        target = url
        try:
            async with asyncio.timeout(self.timeout_s), within_budget():
                if not self.allow_private:
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
                    body = bytearray()
                    async for chunk in answer.aiter_bytes():
                        body += chunk
                        if len(body) > self.max_bytes:
                            raise MetadataUnreachable(
                                "The metadata URL sent more than "
                                f"{self.max_bytes // 1024} KB: it is not a metadata document."
                            )
                    return bytes(body)
        except TimeoutError as exc:
            raise MetadataUnreachable("The metadata URL did not answer in time.") from exc
        except httpx.HTTPError as exc:
            raise MetadataUnreachable(
                f"The metadata URL could not be reached ({type(exc).__name__})."
            ) from exc
