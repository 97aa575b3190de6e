"""End-to-end fixtures: the whole dev stack (``python -m devstack``) on a free port with a
throwaway database, and Debian's chromium driven by Playwright (no browser download)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from devstack.seed import DEMO_EMAIL, DEMO_PASSWORD
from devstack.services import ROOT, free_port

ARTIFACTS = ROOT / "artifacts"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

# Every page the tests open fails its test on a Content-Security-Policy violation:
# Chromium logs each one as a console error ("Refused to ... violates the following Content
# Security Policy directive ..."), and this init script, run in every frame before the page's
# own scripts, records the `securitypolicyviolation` events too and reports them on the console.
CSP_VIOLATION_RECORDER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  const violation = `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} ` +
    `at ${event.sourceFile || document.location.href}:${event.lineNumber}`;
  window.__cspViolations.push(violation);
  console.error(`Content Security Policy violation: ${violation}`);
});
"""
csp_errors: list[str] = []  # console errors about CSP, from every context of the running test


def watch_csp(context: BrowserContext) -> None:
    """Record the CSP violations of every page of ``context`` into :data:`csp_errors`."""

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            csp_errors.append(f"{message.page.url if message.page else '?'}: {message.text}")

    context.add_init_script(CSP_VIOLATION_RECORDER)
    context.on("console", on_console)


@pytest.fixture(scope="session")
def console_url() -> Iterator[str]:
    """Start the dev stack and yield its URL; Ctrl-C (SIGINT) stops it and drops the database."""
    with running_devstack("e2e") as url:
        yield url


@contextmanager
def running_devstack(name: str) -> Iterator[str]:
    """The dev stack on a free port with a throwaway database (data under
    ``.testdata/<name>``, log in ``.testdata/<name>-devstack.log``); yields its URL and stops
    it with SIGINT afterwards (also used by bench/browser_load.py)."""
    port = free_port()
    log_path = ROOT / ".testdata" / f"{name}-devstack.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "devstack",
                "--port",
                str(port),
                "--throwaway-db",
                "--data-dir",
                str(ROOT / ".testdata" / name),
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240
        try:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"dev stack exited:\n{log_path.read_text()[-3000:]}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"dev stack not ready:\n{log_path.read_text()[-3000:]}")
                try:
                    if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.25)
            yield url
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    executable = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
    new_context = browser.new_context

    def new_watched_context(**options: Any) -> BrowserContext:
        context = new_context(**options)
        watch_csp(context)
        return context

    # Contexts that tests open themselves (a second user) are watched too.
    browser.new_context = new_watched_context  # type: ignore[method-assign]
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser, console_url: str, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(base_url=console_url, viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    page = context.new_page()
    csp_errors.clear()
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    recorded = page.evaluate("window.__cspViolations ?? []")
    context.close()
    assert not recorded, f"CSP violations on {page.url}: {recorded}"
    assert not csp_errors, "CSP violations:\n" + "\n".join(csp_errors)


def sign_in(page: Page, email: str = DEMO_EMAIL, password: str = DEMO_PASSWORD) -> None:
    """Sign in through the login screen and wait for Account Information."""
    page.goto("/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in with Email").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def open_account_menu(page: Page) -> Locator:
    """Open the account menu (who is signed in, at the bottom of the sidebar) with a click and
    return it: Sessions, Passkeys, Two-step sign-in and Logout are its items."""
    page.get_by_test_id("account-menu").click()
    menu = page.get_by_role("menu", name="Your account")
    expect(menu).to_be_visible()
    return menu


def sign_in_on_hosted_ui(
    page: Page,
    button: str,
    email: str,
    first_name: str,
    last_name: str,
    workspace_domain: str | None = None,
) -> None:
    """Press ``button`` ('Sign in with Google' or 'Sign in with GitHub') on /login and sign
    ``email`` in on the hosted-UI stand-in; ``workspace_domain`` is the Google Workspace
    hosted domain (``hd``) the identity asserts, none for a personal Google account. The
    caller waits for where the console goes next (/account, or /oauth/sso for a new
    identity)."""
    page.goto("/login")
    page.get_by_role("button", name=button).click()
    # Wait for the stand-in's page: /login has an Email field too.
    expect(page).to_have_url(re.compile(r"/oauth2/authorize\?"))
    page.get_by_label("Email").fill(email)
    page.get_by_label("First name").fill(first_name)
    page.get_by_label("Last name").fill(last_name)
    if workspace_domain is not None:
        page.get_by_label("Google Workspace domain").fill(workspace_domain)
    page.get_by_role("button", name="Continue").click()


def sign_in_with_google(page: Page, email: str, first_name: str, last_name: str) -> None:
    """:func:`sign_in_on_hosted_ui` with Google, as a Google Workspace account of the email's
    domain (only such an identity auto-joins)."""
    sign_in_on_hosted_ui(
        page, "Sign in with Google", email, first_name, last_name, email.rsplit("@", 1)[1]
    )


def google_account_in_api(console_url: str, email: str, account_name: str) -> str:
    """Sign a Google identity in through the hosted-UI stand-in, exchange the code and create
    an account for it, as /oauth/sso does; returns its access token. The identity is a
    Google Workspace account of the email's domain."""
    redirect_uri = f"{console_url}/oauth/sso"
    with httpx.Client(base_url=console_url) as browser:  # keeps the OAuth flow cookie
        start = browser.post(
            "/web/session/authorize",
            json={"identityProvider": "Google", "redirectUri": redirect_uri},
        ).json()
        query = {k: v[0] for k, v in parse_qs(urlparse(start["authorizeUrl"]).query).items()}
        authorized = browser.post(
            "/oauth2/authorize",
            data={
                "identity_provider": "Google",
                "redirect_uri": redirect_uri,
                "client_id": query["client_id"],
                "state": query["state"],
                "code_challenge": query["code_challenge"],
                "email": email,
                "given_name": "Gus",
                "family_name": "Google",
                "hd": email.rsplit("@", 1)[1],
            },
        )
        returned = parse_qs(urlparse(authorized.headers["location"]).query)
        exchanged = browser.post(
            "/web/session/token",
            json={
                "code": returned["code"][0],
                "state": returned["state"][0],
                "redirectUri": redirect_uri,
            },
        ).json()
    token = exchanged["tokens"]["accessToken"]
    created = httpx.post(
        f"{console_url}/web/sso-accounts/create",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "accountName": account_name,
            "userFirstName": "Gus",
            "userLastName": "Google",
            "userEmail": email,
            "userIdentityId": exchanged["identity"]["username"],
        },
    )
    assert created.status_code == 204, created.text
    return str(token)


def verify_domain_in_api(console_url: str, headers: dict[str, str], domain: str) -> None:
    """As the Owner or Admin of ``headers``: add ``domain``, publish its TXT record and verify
    it, through the API."""
    added = httpx.post(f"{console_url}/web/sso/domains", headers=headers, json={"domain": domain})
    assert added.status_code == 201, added.text
    publish_txt(console_url, domain, added.json()["domain"]["record"]["value"])
    verified = httpx.post(
        f"{console_url}/web/sso/domains/{added.json()['domain']['id']}/verify", headers=headers
    )
    assert verified.json()["domain"]["state"] == "Verified", verified.text


def require_google_sso_in_api(console_url: str, headers: dict[str, str], domain: str) -> None:
    """As the Google Owner of ``headers``: verify ``domain`` (:func:`verify_domain_in_api`) and
    require Google SSO, through the API."""
    verify_domain_in_api(console_url, headers, domain)
    required = httpx.post(
        f"{console_url}/web/sso", headers=headers, json={"requireGoogleSSO": True}
    )
    assert required.status_code == 200, required.text


def publish_txt(console_url: str, name: str, *values: str) -> None:
    """Set the TXT values of ``name`` in the dev stack's DNS stand-in (``PUT /dev/dns/<name>``),
    as the domain's owner would at their DNS provider."""
    response = httpx.put(f"{console_url}/dev/dns/{name}", json={"txt": list(values)}, timeout=10)
    assert response.status_code == 200, response.text


def verify_domain_in_console(page: Page, console_url: str, domain: str) -> None:
    """On User Management: add ``domain`` in the domain box, publish the TXT record it shows
    through the DNS stand-in, press Verify and wait for Verified."""
    box = page.get_by_role("region", name="Domains")
    box.get_by_label("Domain", exact=True).fill(domain)
    box.get_by_role("button", name="Add domain").click()
    item = box.get_by_role("listitem", name=domain)
    expect(item).to_contain_text("Pending")
    publish_txt(console_url, domain, item.get_by_test_id("txt-value").inner_text())
    item.get_by_role("button", name=f"Verify {domain}").click()
    expect(item).to_contain_text("Verified")


@contextmanager
def api_as(
    console_url: str, email: str = DEMO_EMAIL, password: str = DEMO_PASSWORD
) -> Iterator[httpx.Client]:
    """An API client signed in as ``email`` (``POST /web/session/sign-in``; bearer token)."""
    with httpx.Client(base_url=console_url, timeout=10) as client:
        response = client.post("/web/session/sign-in", json={"email": email, "password": password})
        response.raise_for_status()
        token = response.json()["tokens"]["accessToken"]
        client.headers["Authorization"] = f"Bearer {token}"
        yield client


def demo_user(api: httpx.Client, email: str) -> dict[str, Any] | None:
    """The user ``email`` of the account ``api`` is signed in to (``GET /web/account``)."""
    users = api.get("/web/account").json()["account"]["users"]
    return next((u for u in users if u["email"] == email), None)


def set_role(console_url: str, email: str, role: str) -> None:
    """Give the demo account's user ``email`` the ``role``, as the demo Owner through the API."""
    with api_as(console_url) as api:
        user = demo_user(api, email)
        assert user is not None, email
        names = {"firstName": user["firstName"], "lastName": user["lastName"]}
        api.put(f"/web/users/{user['id']}", json={**names, "role": role}).raise_for_status()


AXE_SCRIPT = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
# The rule sets the console holds itself to: WCAG 2.0, 2.1 and 2.2 A/AA and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def assert_no_axe_violations(page: Page, context: str, exclude: list[str] | None = None) -> None:
    """Run axe-core (web/node_modules, the version pinned in web/package.json) on ``page`` with
    :data:`AXE_TAGS` and fail listing each violation's id, help and targets. ``exclude`` are
    CSS selectors left out (frames of third parties, such as the card provider's field);
    ``context`` names the screen or dialog in the failure message."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol: a <script> tag (add_script_tag) would be
        # inline script, which the console's Content-Security-Policy rightly refuses.
        page.evaluate(AXE_SCRIPT.read_text())
    results = page.evaluate(
        """([tags, exclude]) => axe.run(
            { include: [document], exclude: exclude.map((selector) => [selector]) },
            { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] },
        )""",
        [AXE_TAGS, exclude or []],
    )
    violations = [
        f"{v['id']} ({v['impact']}): {v['help']}\n"
        + "\n".join(f"    {node['target']}: {node['failureSummary']}" for node in v["nodes"])
        for v in results["violations"]
    ]
    assert not violations, f"axe-core violations on {context} ({page.url}):\n" + "\n".join(
        violations
    )
