"""The client address behind proxies: only TRUSTED_PROXIES' X-Forwarded-For counts (README "Sign-in
and abuse limits"); the limits key an IPv6 client by its /64."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError

from api.app.web import create_app
from api.kernel.config import Settings
from api.kernel.http.client_address import client_address, limit_key, parse_networks
from devstack.stack import Stack
from tests.api.conftest import unique_email

PROXIES = parse_networks(["10.0.0.0/8", "192.0.2.10"])


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        # Not from a proxy: the header is the client's own words, ignored.
        ("203.0.113.5", ["198.51.100.1"], "203.0.113.5"),
        # Through one trusted proxy: the address it saw.
        ("10.1.2.3", ["198.51.100.1"], "198.51.100.1"),
        # A client that writes its own header: the right-most untrusted hop is the real one.
        ("10.1.2.3", ["1.2.3.4, 198.51.100.1"], "198.51.100.1"),
        # Two trusted proxies in a row, headers split over two lines.
        ("10.1.2.3", ["198.51.100.1", "192.0.2.10"], "198.51.100.1"),
        # A trusted proxy that sent no header: the proxy itself.
        ("192.0.2.10", [], "192.0.2.10"),
        # Garbage in the header is an untrusted hop like any other.
        ("10.1.2.3", ["not-an-ip"], "not-an-ip"),
    ],
)
def test_client_address(peer: str, forwarded: list[str], expected: str) -> None:
    assert client_address(peer, forwarded, PROXIES) == expected


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.5", "203.0.113.5"),
        # One subscriber's /64 is one client, whichever of its 2**64 addresses it uses.
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:DB8:1:3::1", "2001:db8:1:3::/64"),
        # An IPv4 client seen through an IPv6 socket is its IPv4 address.
        ("::ffff:198.51.100.9", "198.51.100.9"),
        # Not an address (a test client, garbage from a trusted proxy's header): as it is.
        ("not-an-ip", "not-an-ip"),
    ],
)
def test_limit_key(address: str, key: str) -> None:
    assert limit_key(address) == key


def test_a_bad_trusted_proxy_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="TRUSTED_PROXIES: 'ten' is not an address or CIDR"):
        Settings(trusted_proxies=["10.0.0.0/8", "ten"])


async def test_the_sign_in_limit_counts_the_address_the_proxy_saw(stack: Stack) -> None:
    app = create_app(
        stack.with_settings(sign_in_limit_per_address=2, trusted_proxies=["10.9.0.0/16"])
    )
    attempt = {"email": unique_email("spray"), "password": "Wrong-pass-1!"}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("10.9.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as proxy:
            statuses = [
                (
                    await proxy.post(
                        "/web/session/sign-in",
                        json=attempt,
                        headers={"X-Forwarded-For": f"6.6.6.{i}, 203.0.113.77"},
                    )
                ).status_code
                for i in range(3)
            ]
            other = await proxy.post(
                "/web/session/sign-in", json=attempt, headers={"X-Forwarded-For": "203.0.113.78"}
            )
    # The spoofed left-most hops change nothing: all three came from 203.0.113.77.
    assert statuses == [400, 400, 429]
    assert other.status_code == 400


async def test_an_ipv6_client_is_limited_by_its_64(stack: Stack) -> None:
    app = create_app(stack.with_settings(sign_in_limit_per_address=2))
    attempt = {"email": unique_email("spray6"), "password": "Wrong-pass-1!"}

    async def sign_in(address: str) -> int:
        transport = httpx.ASGITransport(app=app, client=(address, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return (await c.post("/web/session/sign-in", json=attempt)).status_code

    async with app.router.lifespan_context(app):
        # A new address of the same /64 for every attempt changes nothing.
        statuses = [await sign_in(f"2001:db8:77:1::{i + 1:x}") for i in range(3)]
        other = await sign_in("2001:db8:77:2::1")
    assert statuses == [400, 400, 429]
    assert other == 400
