"""The handbook (docs/contributors/handbook.md): built only when its sources changed, the README
kept to one screen, and served by the dev stack at /handbook/ with a policy of its own, never by
the production app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from api.app.web import create_app
from devstack.app import create_dev_app
from devstack.handbook import HANDBOOK_POLICY, mount_handbook
from devstack.stack import Stack
from tools import handbook

PAGE = "<!doctype html><title>Billing - Account console handbook</title>"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A built handbook: the home page and one page in a folder."""
    (tmp_path / "site" / "users" / "billing").mkdir(parents=True)
    (tmp_path / "site" / "index.html").write_text("<!doctype html><title>Handbook</title>")
    (tmp_path / "site" / "users" / "billing" / "index.html").write_text(PAGE)
    return tmp_path / "site"


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.html").write_text('<!doctype html><div id="root"></div>')
    return tmp_path / "dist"


async def client_for(app: object) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


class TestServedByTheDevStack:
    @pytest.fixture
    async def dev(self, stack: Stack, site: Path, dist: Path) -> AsyncIterator[httpx.AsyncClient]:
        app = create_dev_app(stack.with_settings(web_dist=str(dist)))
        mount_handbook(app, site)  # ahead of the one create_dev_app mounted on site/
        async for c in client_for(app):
            yield c

    async def test_pages_get_their_own_policy_and_are_revalidated(
        self, dev: httpx.AsyncClient
    ) -> None:
        response = await dev.get("/handbook/users/billing/")
        assert response.status_code == 200 and response.text == PAGE
        assert response.headers["content-security-policy"] == HANDBOOK_POLICY
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-frame-options"] == "DENY"

    async def test_the_bare_path_leads_to_the_home_page(self, dev: httpx.AsyncClient) -> None:
        response = await dev.get("/handbook", follow_redirects=True)
        assert response.status_code == 200 and "<title>Handbook</title>" in response.text
        assert str(response.url) == "http://testserver/handbook/"

    async def test_the_spa_keeps_its_strict_policy(self, dev: httpx.AsyncClient) -> None:
        response = await dev.get("/billing")
        assert 'id="root"' in response.text
        assert "'unsafe-inline'" not in response.headers["content-security-policy"]

    async def test_nothing_outside_the_site_is_served(
        self, dev: httpx.AsyncClient, site: Path
    ) -> None:
        (site.parent / "secret.txt").write_text("beside the site")
        response = await dev.get("/handbook/%2e%2e/secret.txt")
        assert response.status_code == 404 and "beside the site" not in response.text


async def test_the_production_app_serves_no_handbook(stack: Stack, dist: Path) -> None:
    async for c in client_for(create_app(stack.with_settings(web_dist=str(dist)))):
        response = await c.get("/handbook/")
    assert response.headers["content-security-policy"] != HANDBOOK_POLICY
    assert 'id="root"' in response.text  # the SPA's fallback, as for any unknown path


class TestBuild:
    def test_the_hash_follows_every_source(self, tmp_path: Path) -> None:
        for source in ("mkdocs.yml", "openapi.json", "tools/handbook.py", "docs/a/page.md"):
            (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / source).write_text("one")
        before = handbook.source_hash(tmp_path)
        (tmp_path / "docs" / "a" / "page.md").write_text("two")
        assert handbook.source_hash(tmp_path) != before
        (tmp_path / "docs" / "a" / "page.md").write_text("one")
        assert handbook.source_hash(tmp_path) == before
        (tmp_path / "docs" / "new.md").write_text("")
        assert handbook.source_hash(tmp_path) != before

    def test_a_site_built_from_the_sources_is_not_built_again(self, site: Path) -> None:
        (site / handbook.STAMP).write_text(handbook.source_hash())
        said: list[str] = []
        assert handbook.build_if_changed(said.append, site=site)
        assert said == []

    def test_the_readme_fits_one_screen(self) -> None:
        assert handbook.readme_problem() is None

    def test_a_long_readme_is_refused(self, tmp_path: Path) -> None:
        (tmp_path / "README.md").write_text("line\n" * handbook.README_MAX_LINES)
        assert "150 lines" in (handbook.readme_problem(tmp_path) or "")
