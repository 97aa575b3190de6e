"""Browser load benchmark: how long Account Information takes to show its usage, in Debian's
chromium driven by Playwright (as tests/e2e does), against the dev stack on loopback.

    python -m bench.browser_load [--runs 15]

Starts the dev stack (``python -m devstack`` on a free port with a throwaway database;
it builds web/dist when the sources changed), signs the demo user in once and then measures,
``--runs`` times each, alternating:

- **reload**: ``/account`` reloaded (tokens in memory are gone; the refresh cookie and the
  session note remain), from the navigation's start to the usage text (``usage-summary``)
  being in the page: the cold load, refresh and every call the SPA makes before it can draw.
- **in-app**: on a freshly loaded User Management, a click on 'Account Information' until
  the usage text is in the page.

Times are read in the page (``performance.now()``: 0 is the navigation's start for a reload,
the click for the in-app run), so Playwright's own round trips are not counted. It prints
the median and the spread of each, and the API calls of the last run of each with their
start and end (ms) so that calls made one after another show as a staircase.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics

from playwright.sync_api import Page, sync_playwright

from devstack.seed import DEMO_EMAIL, DEMO_PASSWORD
from tests.e2e.conftest import CHROMIUM_FLAGS, running_devstack

# Resolves once the usage text is in the page; its value is performance.now() at that moment.
USAGE_SHOWN = """
() => new Promise((resolve) => {
  const found = () => document.querySelector('[data-testid="usage-summary"]')?.textContent;
  if (found()) return resolve(performance.now());
  const observer = new MutationObserver(() => {
    if (found()) { observer.disconnect(); resolve(performance.now()); }
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})
"""

# Clicks 'Account Information' in the sidebar and resolves with the ms until the usage text.
NAVIGATE_TO_ACCOUNT = """
() => new Promise((resolve) => {
  const link = [...document.querySelectorAll('nav a')]
    .find((a) => a.textContent.trim() === 'Account Information');
  const start = performance.now();
  const found = () => document.querySelector('[data-testid="usage-summary"]')?.textContent;
  const observer = new MutationObserver(() => {
    if (found()) { observer.disconnect(); resolve(performance.now() - start); }
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
  link.click();
})
"""

# The API calls of this document, with start and end in ms since the navigation's start.
API_CALLS = """
() => performance.getEntriesByType('resource')
  .filter((e) => new URL(e.name).pathname.startsWith('/web/'))
  .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime, end: e.responseEnd }))
"""


def reload_account(page: Page) -> tuple[float, list[dict[str, float | str]]]:
    """One cold load of /account: ms from the navigation's start to the usage text."""
    page.reload(wait_until="commit")
    shown = float(page.evaluate(USAGE_SHOWN))
    return shown, page.evaluate(API_CALLS)


def navigate_to_account(page: Page) -> tuple[float, list[dict[str, float | str]]]:
    """Users -> Account Information in the app: ms from the click to the usage text."""
    page.goto("/users")
    page.get_by_role("heading", name="User Management").wait_for()
    page.wait_for_load_state("networkidle")
    before = len(page.evaluate(API_CALLS))
    elapsed = float(page.evaluate(NAVIGATE_TO_ACCOUNT))
    page.wait_for_load_state("networkidle")
    return elapsed, page.evaluate(API_CALLS)[before:]


def describe(name: str, samples: list[float]) -> str:
    """``name: median X ms (min, max, n)``."""
    return (
        f"{name}: median {statistics.median(samples):.0f} ms "
        f"(min {min(samples):.0f}, max {max(samples):.0f}, n={len(samples)})"
    )


def print_calls(title: str, calls: list[dict[str, float | str]]) -> None:
    print(f"  {title}:")
    for call in calls:
        print(f"    {call['path']:<28} {float(call['start']):7.1f} -> {float(call['end']):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    executable = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with running_devstack("bench-browser") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        context = browser.new_context(base_url=url, viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto("/login")
        page.get_by_label("Email").fill(DEMO_EMAIL)
        page.get_by_label("Password").fill(DEMO_PASSWORD)
        page.get_by_role("button", name="Sign in with Email").click()
        page.wait_for_url("**/account")
        reloads: list[float] = []
        navigations: list[float] = []
        reload_calls: list[dict[str, float | str]] = []
        navigation_calls: list[dict[str, float | str]] = []
        for _ in range(args.runs):
            elapsed, navigation_calls = navigate_to_account(page)
            navigations.append(elapsed)
            elapsed, reload_calls = reload_account(page)
            reloads.append(elapsed)
        browser.close()
    print(describe("reload /account to the usage text", reloads))
    print(describe("in-app Users -> Account Information to the usage text", navigations))
    print_calls("API calls of the last reload (ms since the navigation's start)", reload_calls)
    print_calls(
        "API calls of the last in-app navigation (ms since the page started)", navigation_calls
    )


if __name__ == "__main__":
    main()
