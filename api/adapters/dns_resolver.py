"""DNS lookups for domain verification (README "Verified domains"), with dnspython's async resolver.

One operation: the TXT records of a name (RFC 1035 3.3.14; a record's character-strings are
joined into one value, as RFC 7208 3.3 does for SPF). Which nameservers answer, on which
port, and how long a lookup may take come from settings (``DNS_NAMESERVERS``, ``DNS_PORT``,
``DNS_TIMEOUT_S``, ``DNS_LIFETIME_S``); with no nameservers configured the system's
(``/etc/resolv.conf``) are used. At most ``DNS_LOOKUPS_PER_REPLICA`` lookups run at once in
one process: a slow nameserver costs waiting coroutines, never more. The dev stack points it
at its loopback stand-in (``devstack/dns_server.py``); nothing here knows about that.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import dns.asyncresolver
import dns.exception
import dns.name
import dns.rdatatype
import dns.resolver
import structlog
from dns.rdtypes.ANY.TXT import TXT

from api.kernel.config import Settings

log = structlog.get_logger(__name__)


class DnsBusy(Exception):
    """Every lookup slot of this process is taken and the caller chose not to wait."""


class DnsLookupFailed(Exception):
    """No answer could be had: every nameserver timed out, failed (SERVFAIL, REFUSED) or
    could not be reached within the lookup's lifetime. Nothing is known about the name."""


@dataclass(frozen=True, slots=True)
class TxtLookup:
    """The outcome of a TXT lookup.

    ``exists`` is False when the name does not exist (NXDOMAIN, RFC 1035 4.1.1 RCODE 3);
    ``values`` holds one string per TXT record (empty when the name has none: NODATA).
    """

    exists: bool
    values: tuple[str, ...]


class DnsResolver:
    """Async TXT lookups against the configured nameservers.

    Build once in the app lifespan (:meth:`from_settings`); it holds no connection to close.

    Args:
        nameservers: IP addresses to ask; empty uses the system's resolver configuration.
        port: their port (53 in production).
        timeout_s: seconds to wait for one nameserver's answer before trying the next.
        lifetime_s: seconds one lookup may take in all, retries included.
        max_concurrent: lookups that may run at once; more wait, or raise :class:`DnsBusy`.
    """

    def __init__(
        self,
        *,
        nameservers: list[str],
        port: int,
        timeout_s: float,
        lifetime_s: float,
        max_concurrent: int = 20,
    ) -> None:
        self._slots = asyncio.Semaphore(max_concurrent)
        try:
            resolver = dns.asyncresolver.Resolver(configure=not nameservers)
        except dns.resolver.NoResolverConfiguration:
            # No /etc/resolv.conf: every lookup raises DnsLookupFailed (a 503 to the user)
            # rather than the API refusing to start for one feature.
            log.error("dns_no_resolver_configuration")
            resolver = dns.asyncresolver.Resolver(configure=False)
        if nameservers:
            resolver.nameservers = list(nameservers)
        resolver.port = port
        resolver.timeout = timeout_s
        resolver.lifetime = lifetime_s
        self._resolver = resolver

    @classmethod
    def from_settings(cls, settings: Settings) -> DnsResolver:
        """The resolver of ``DNS_NAMESERVERS``, ``DNS_PORT``, ``DNS_TIMEOUT_S`` and
        ``DNS_LIFETIME_S`` and ``DNS_LOOKUPS_PER_REPLICA``."""
        return cls(
            nameservers=settings.dns.nameservers,
            port=settings.dns.port,
            timeout_s=settings.dns.timeout_s,
            lifetime_s=settings.dns.lifetime_s,
            max_concurrent=settings.sso.dns_lookups_per_replica,
        )

    async def txt(self, domain: str, *, wait: bool = True) -> TxtLookup:
        """The TXT records at ``domain`` (a fully qualified name such as ``example.com``;
        no search list is applied), in one of the process's lookup slots: waiting for one,
        or with ``wait=False`` refusing when none is free.

        Returns:
            :class:`TxtLookup`: whether the name exists and its TXT values, in the order
            the nameserver gave them.

        Raises:
            DnsBusy: ``wait`` is False and every slot is taken.
            DnsLookupFailed: timeout, SERVFAIL/REFUSED from every nameserver, no nameserver
                configured, or a malformed answer.
        """
        if not wait and self._slots.locked():
            raise DnsBusy(domain)
        async with self._slots:
            return await self._txt(domain)

    async def _txt(self, domain: str) -> TxtLookup:
        try:
            name = dns.name.from_text(domain)  # absolute: relative to the root
            answer = await self._resolver.resolve(name, dns.rdatatype.TXT, search=False)
        except dns.resolver.NXDOMAIN:
            return TxtLookup(exists=False, values=())
        except dns.resolver.NoAnswer:
            return TxtLookup(exists=True, values=())
        except (dns.exception.DNSException, OSError) as exc:
            raise DnsLookupFailed(f"TXT {domain}: {exc!r}") from exc
        values = tuple(
            b"".join(rdata.strings).decode("utf-8", errors="replace")
            for rdata in answer
            if isinstance(rdata, TXT)
        )
        return TxtLookup(exists=True, values=values)
