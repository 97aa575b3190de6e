"""Account Information in the browser: replayed metering traffic reaches the graph,
renaming updates the sidebar, the API key copies with its tooltip, and an account without
usage sees the setup warning."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import httpx
from playwright.sync_api import Page, expect

from devstack.seed import DEMO_ACCOUNT, DEMO_EMAIL, DEMO_PASSWORD, EMPTY_ACCOUNT, EMPTY_EMAIL
from devstack.services import ROOT
from tests.e2e.conftest import sign_in

WARNING = "No usage detected for this account"


def current_cycle_requests(page: Page) -> int:
    bar = page.get_by_test_id("usage-bar").last
    return int(bar.get_attribute("data-requests") or "-1")


def test_replayed_traffic_shows_up_in_the_graph(page: Page, console_url: str) -> None:
    sign_in(page)
    expect(page.get_by_test_id("usage-graph")).to_be_visible()
    expect(page.get_by_text(WARNING)).to_have_count(0)
    before = current_cycle_requests(page)
    assert before > 0
    replay = subprocess.run(
        [sys.executable, "-m", "devstack.replay", "--url", console_url, "--runs", "12"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    sent = re.search(
        r"sent 12 records \((\d+) requests\).*: 12 counted, (\d+) duplicates", replay.stdout
    )
    assert sent, replay.stdout
    page.reload()
    after = before + int(sent.group(1))
    expect(page.get_by_test_id("usage-bar").last).to_have_attribute("data-requests", str(after))
    expect(page.get_by_test_id("usage-summary")).to_have_text(
        re.compile(rf"^{after:,} of [\d,]+ requests$")
    )
    expect(
        page.get_by_text(re.compile(r"^Resets on [A-Z][a-z]{2} \d{1,2}, \d{4}$"))
    ).to_be_visible()
    for label in ("Web", "Native Mobile", "API", "Limit"):
        expect(
            page.get_by_role("listitem").filter(has_text=re.compile(f"^{label}$"))
        ).to_be_visible()
    expect(page.get_by_test_id("usage-limit")).to_have_count(1)


def _rename_via_api(console_url: str, name: str) -> None:
    with httpx.Client(base_url=console_url, timeout=10) as client:
        tokens = client.post(
            "/web/session/sign-in", json={"email": DEMO_EMAIL, "password": DEMO_PASSWORD}
        ).json()["tokens"]
        response = client.put(
            "/web/account",
            json={"name": name},
            headers={"Authorization": f"Bearer {tokens['accessToken']}"},
        )
        response.raise_for_status()


def test_rename_account_updates_the_sidebar(page: Page, console_url: str) -> None:
    sign_in(page)
    name = page.get_by_label("Account Name")
    save = page.get_by_role("button", name="Save", exact=True)
    sidebar = page.get_by_test_id("sidebar-account-name")
    try:
        expect(name).to_have_value(DEMO_ACCOUNT)
        expect(save).to_be_disabled()  # unchanged
        name.fill("   ")
        expect(save).to_be_disabled()  # empty after trimming
        name.fill(DEMO_ACCOUNT + "  ")
        expect(save).to_be_disabled()  # the same name once trimmed
        name.fill("Acme Robotics Europe")
        expect(save).to_be_enabled()
        save.click()
        expect(sidebar).to_have_text("Acme Robotics Europe")
        expect(save).to_be_disabled()
        page.reload()
        expect(sidebar).to_have_text("Acme Robotics Europe")
        expect(page.get_by_label("Account Name")).to_have_value("Acme Robotics Europe")
        # Back to the seeded name through the UI (other tests expect it).
        page.get_by_label("Account Name").fill(DEMO_ACCOUNT)
        page.get_by_role("button", name="Save", exact=True).click()
        expect(sidebar).to_have_text(DEMO_ACCOUNT)
    finally:
        _rename_via_api(console_url, DEMO_ACCOUNT)


# Each layout shift the page makes, as where its moved elements are: "main" (the page's own
# content) or "outside" (the footer, pushed down as the content first appears).
RECORD_LAYOUT_SHIFTS = """
window.__layoutShifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__layoutShifts.push(entry.sources.map((source) => {
      const node = source.node;
      const element = node && (node.nodeType === 1 ? node : node.parentElement);
      return element && element.closest("main") ? "main" : "outside";
    }));
  }
}).observe({ type: "layout-shift", buffered: true });
"""


def test_account_information_does_not_move_while_it_loads(page: Page) -> None:
    """Everything below the graph loads apart (its own chunks and reads) and appears at once:
    no panel is pushed down by one above it growing, on a window tall enough to show them all."""
    page.set_viewport_size({"width": 1280, "height": 1800})
    page.add_init_script(RECORD_LAYOUT_SHIFTS)
    sign_in(page)
    for _ in range(2):  # the first visit, then a reload with the chunks in the cache
        page.reload()
        expect(page.get_by_role("region", name="At the allowance")).to_be_visible()
        page.wait_for_load_state("networkidle")
        shifts = page.evaluate("window.__layoutShifts")
        assert all("main" not in sources for sources in shifts), shifts


def test_copy_api_key_fills_the_clipboard_and_the_tooltip_reverts(
    page: Page, console_url: str
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=console_url)
    sign_in(page)
    key = page.get_by_test_id("api-key").inner_text()
    assert re.fullmatch(r"ak_…[0-9a-f]{4}", key)  # masked
    copy = page.get_by_role("button", name="Copy API Key")
    tooltip = page.get_by_role("tooltip").filter(has_text=re.compile("Copy API Key|Copied!"))
    page.wait_for_load_state("networkidle")  # the panels above have loaded: nothing moves it
    copy.hover()
    expect(tooltip).to_have_text("Copy API Key")
    expect(tooltip).to_be_visible()
    copy.click()
    clicked = time.monotonic()
    expect(tooltip).to_have_text("Copied!")
    expect(tooltip).to_be_visible()
    # Copied without being revealed: the screen keeps the masked key.
    copied = page.evaluate("navigator.clipboard.readText()")
    assert re.fullmatch(r"ak_[0-9a-f]{40}", copied) and key == f"ak_…{copied[-4:]}"
    expect(page.get_by_test_id("api-key")).to_have_text(key)
    expect(tooltip).to_have_text("Copy API Key", timeout=5000)
    shown = time.monotonic() - clicked
    assert 2.3 <= shown <= 4.0, f"'Copied!' showed for {shown:.2f}s"


def test_an_account_without_usage_sees_the_setup_warning(page: Page) -> None:
    sign_in(page, EMPTY_EMAIL, DEMO_PASSWORD)
    expect(page.get_by_test_id("sidebar-account-name")).to_have_text(EMPTY_ACCOUNT)
    warning = page.get_by_role("status").filter(has_text=WARNING)
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("npm install --save-dev autostep")
    expect(warning).to_contain_text("export AUTOSTEP_API_KEY=<your API key>")
    expect(page.get_by_test_id("usage-summary")).to_have_text("0 of 100 requests")
    expect(page.get_by_test_id("usage-bar")).to_have_count(1)


def _groups(pattern: str, text: str) -> tuple[str, ...]:
    match = re.fullmatch(pattern, text)
    assert match, f"{text!r} does not match {pattern!r}"
    return match.groups()


def test_the_forecast_extends_the_current_bar_and_warns_past_the_allowance(page: Page) -> None:
    """The forecast: the seeded demo account has usage in the current cycle and the one
    before, so the overview projects the cycle's end, the graph draws the projection as a dashed
    extension on top of the current bar, and a projection past the plan's allowance warns."""
    sign_in(page)
    text = page.get_by_test_id("usage-forecast-text")
    expect(text).to_have_text(
        re.compile(r"^On track for about [\d,]+ requests by [A-Z][a-z]{2} \d{1,2}, \d{4}$")
    )
    about, by = _groups(r"On track for about ([\d,]+) requests by (.+)", text.inner_text())
    resets = page.get_by_text(re.compile(r"^Resets on ")).inner_text()
    assert by == resets.removeprefix("Resets on ")  # seeded anchor: the cycle ends when it resets
    summary = page.get_by_test_id("usage-summary").inner_text()
    used, allowance = (
        int(n.replace(",", "")) for n in _groups(r"([\d,]+) of ([\d,]+) requests", summary)
    )

    extension = page.get_by_test_id("usage-forecast")
    expect(extension).to_be_visible()
    projected = int(extension.get_attribute("data-requests") or "0")
    assert projected > used
    assert abs(int(about.replace(",", "")) - projected) <= projected * 0.05  # two digits
    expect(extension.locator("title")).to_have_text(f"Forecast: about {about} requests by {by}")
    assert extension.evaluate("e => getComputedStyle(e).strokeDasharray") not in ("", "none")
    # It sits on the current cycle's bar (SVG user units): same column, its bottom on the bar's top.
    bbox = "e => { const b = e.getBBox(); return [b.x + b.width / 2, b.y, b.y + b.height]; }"
    ext_middle, ext_top, ext_bottom = extension.evaluate(bbox)
    bar_middle, bar_top, _ = (
        page.get_by_test_id("usage-bar").last.locator("rect").last.evaluate(bbox)
    )
    assert abs(ext_middle - bar_middle) < 0.01
    assert abs(ext_bottom - bar_top) < 0.01
    assert ext_top < bar_top - 10  # a projection well above what is used so far
    expect(page.get_by_role("listitem").filter(has_text=re.compile("^Forecast$"))).to_be_visible()

    # The replayed traffic of another test may already have used up the free plan.
    warning = page.get_by_role("status").filter(
        has_text=re.compile("At this rate|You have reached")
    )
    if projected <= allowance:
        expect(warning).to_have_count(0)
        return
    if used >= allowance:
        expect(warning).to_contain_text(
            f"You have reached your plan's {allowance:,} requests for this cycle."
        )
    else:
        expect(warning).to_contain_text(
            re.compile(
                rf"At this rate you will pass your plan's {allowance:,} requests around "
                r"[A-Z][a-z]{2} \d{1,2}, \d{4}\.\s*Add units on Billing & Subscription\."
            )
        )
    expect(warning.get_by_role("link", name="Billing & Subscription")).to_have_attribute(
        "href", "/billing"
    )
