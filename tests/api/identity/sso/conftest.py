"""The names the SAML tests' metadata URLs use, resolved as the tests route them: the
metadata fetch resolves and checks a URL's host before it asks respx (which routes by name),
and these names are in no DNS."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.adapters import metadata_url

TEST_HOSTS = {
    # The in-process app (the hosted_ui fixture's routing): this machine.
    "testserver": ["127.0.0.1"],
    # respx's identity provider (routed by name, never reached): a public address.
    "idp.example-idp.com": ["93.184.215.14"],
}


@pytest.fixture(autouse=True)
def _test_hosts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    system = metadata_url.resolve_host

    async def resolve(host: str, port: int) -> list[str]:
        return TEST_HOSTS.get(host) or await system(host, port)

    monkeypatch.setattr(metadata_url, "resolve_host", resolve)
    yield
