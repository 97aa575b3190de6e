"""Which address a request comes from, for the per-address limits (README "Sign-in and abuse
limits").

The socket's peer, unless that peer is one of ``TRUSTED_PROXIES``: then the right-most hop of
``X-Forwarded-For`` that is not itself a trusted proxy (each proxy appends the address it saw,
so everything left of the last untrusted hop may have been written by the client). A header
from any other peer is ignored: nobody can choose their own address by sending it.

The limits count an address by its :func:`limit_key`: an IPv6 client by its /64, the
smallest prefix a subscriber is given (RFC 6177), which it can fill with as many addresses as
it likes.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(cidrs: Sequence[str]) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES`` entries as networks (a bare address is a /32 or /128).

    Raises:
        ValueError: an entry is not an address or CIDR.
    """
    return tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in cidrs)


def _trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(peer: str, forwarded_for: Sequence[str], trusted: Sequence[Network]) -> str:
    """The client's address.

    Args:
        peer: the socket's peer address.
        forwarded_for: every ``X-Forwarded-For`` header value, in order received.
        trusted: the networks of the proxies in front of the API.

    Returns:
        ``peer`` when it is not a trusted proxy; else the right-most untrusted hop of
        ``X-Forwarded-For`` (the left-most hop when all are trusted, ``peer`` when there
        is none).
    """
    if not _trusted(peer, trusted):
        return peer
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted):
            return hop
    return hops[0] if hops else peer


IPV6_LIMIT_PREFIX = 64
MAX_KEY_LENGTH = 64


def limit_key(address: str) -> str:
    """The key the rate limits count ``address`` under.

    Returns:
        an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 one); an IPv6
        address as its /64 network (``2001:db8:1:2::/64``); anything that is not an address
        (a test client's name, garbage a trusted proxy passed on) as its first 64
        characters, so a key always fits its column.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:MAX_KEY_LENGTH]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_LIMIT_PREFIX), strict=False))
    return str(ip)
