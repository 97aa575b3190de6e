"""Spend you control, in the browser (README "Metering intake", "API keys", "Usage alerts and
export"): a key's monthly limit set and shown against its usage, where a cycle's requests went
by API key and by label (and the CSV with them), and stopping at the allowance. Each test
leaves the demo account's settings as it found them."""

from __future__ import annotations

import csv
import io
import re
import uuid
from datetime import UTC, datetime

import httpx
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import ARTIFACTS, sign_in


def reveal_key(page: Page) -> str:
    panel = page.get_by_role("region", name="Account Configuration")
    panel.get_by_role("button", name="Reveal").first.click()
    current = panel.get_by_test_id("api-key")
    expect(current).to_have_text(re.compile(r"^ak_[0-9a-f]{40}$"))
    key = current.inner_text()
    panel.get_by_role("button", name="Hide").click()
    return key


def percents(table: Locator) -> list[int]:
    """The shares a breakdown table shows, in whole percent ("<1 %" as 0)."""
    text = " ".join(table.get_by_role("row").all_inner_texts())
    return [int(m.group(1)) for m in re.finditer(r"(?<![<\d])(\d+) %", text)]


def meter(console_url: str, key: str, credits: int) -> httpx.Response:
    record = {
        "idempotencyKey": str(uuid.uuid4()),
        "platform": "web",
        "runs": 1,
        "credits": credits,
        "time": datetime.now(UTC).isoformat(),
        "labels": {"project": "checkout-suite", "ci": "github-actions"},
    }
    return httpx.post(
        f"{console_url}/metering/usage",
        headers={"X-API-Key": key},
        json={"records": [record]},
        timeout=30,
    )


def test_a_key_limit_is_set_and_shown_against_its_usage(page: Page, console_url: str) -> None:
    sign_in(page)
    # Usage of the current key (another test may have rolled the demo key).
    assert meter(console_url, reveal_key(page), 5).status_code == 200
    page.reload()
    panel = page.get_by_role("region", name="Account Configuration")
    usage = panel.get_by_test_id("api-key-limit")
    expect(usage).to_have_text(re.compile(r"^[\d,]+ requests? this cycle · no monthly limit$"))
    used = int(usage.inner_text().split(" ")[0].replace(",", ""))
    assert used >= 5

    panel.get_by_role("button", name="Set limit").click()
    dialog = page.get_by_role("dialog", name=re.compile(r"^Monthly limit of ak_…[0-9a-f]{4}$"))
    dialog.get_by_label("Monthly limit").fill("12.5")
    dialog.get_by_role("button", name="Save limit").click()
    expect(dialog.get_by_text("Enter a whole number of requests")).to_be_visible()
    dialog.get_by_label("Monthly limit").fill("50,000")
    page.screenshot(path=str(ARTIFACTS / "spend_key_limit_dialog.png"))
    dialog.get_by_role("button", name="Save limit").click()
    expect(dialog).to_be_hidden()
    expect(usage).to_have_text(f"{used:,} of 50,000 requests this cycle")
    limit_meter = panel.get_by_role("meter", name="Requests this cycle against the monthly limit")
    expect(limit_meter).to_have_attribute("aria-valuemax", "50000")
    page.screenshot(path=str(ARTIFACTS / "spend_key_limit_set.png"), full_page=True)

    # Below what the key used: the intake refuses it, and the meter is full.
    panel.get_by_role("button", name="Change limit").click()
    dialog.get_by_label("Monthly limit").fill(str(used))
    dialog.get_by_role("button", name="Save limit").click()
    expect(dialog).to_be_hidden()
    refused = meter(console_url, reveal_key(page), 1)
    assert refused.status_code == 429, refused.text
    assert refused.json()["code"] == "KeyLimitReached"
    assert refused.json()["limit"] == used
    page.reload()
    expect(usage).to_have_text(f"{used:,} of {used:,} requests this cycle · limit reached")
    expect(limit_meter).to_have_attribute("aria-valuenow", str(used))
    page.screenshot(path=str(ARTIFACTS / "spend_key_limit_reached.png"), full_page=True)

    # The roll dialog starts with the current key's limit; the demo key as it was.
    panel.get_by_role("button", name="Roll key").click()
    roll = page.get_by_role("dialog", name="Roll API key")
    expect(roll.get_by_label("Monthly limit of the new key")).to_have_value(f"{used:,}")
    roll.get_by_role("button", name="Cancel").click()
    panel.get_by_role("button", name="Change limit").click()
    dialog.get_by_label("Monthly limit").fill("")
    dialog.get_by_role("button", name="Save limit").click()
    expect(usage).to_have_text(re.compile(r"· no monthly limit$"))


def test_where_the_requests_went_by_key_and_label(page: Page) -> None:
    sign_in(page)
    panel = page.get_by_role("region", name="Where the requests went")
    by_key = panel.get_by_role("table", name="By API key")
    expect(by_key.get_by_role("row").nth(1)).to_contain_text(re.compile(r"^ak_…[0-9a-f]{4}"))
    assert 97 <= sum(percents(by_key)) <= 103

    label = panel.get_by_label("Label")
    expect(label).to_have_value("ci")  # the first label name of the cycle
    label.select_option("project")
    by_project = panel.get_by_role("table", name="By project")
    expect(by_project).to_contain_text("checkout-suite")
    rows = by_project.get_by_role("row")
    expect(rows.last).to_contain_text("Without project")
    assert 97 <= sum(percents(by_project)) <= 103  # the whole cycle, each share rounded
    page.screenshot(path=str(ARTIFACTS / "spend_breakdown.png"), full_page=True)

    cycle = panel.get_by_label("Billing cycle")
    expect(cycle.locator("option").first).to_contain_text("(current)")
    cycle.select_option(index=1)  # the previous cycle: seeded usage
    expect(panel.get_by_label("Label")).to_have_value("ci")
    panel.get_by_label("Label").select_option("project")
    expect(panel.get_by_role("table", name="By project")).to_contain_text("checkout-suite")
    with page.expect_download() as info:
        panel.get_by_role("button", name="Download CSV").click()
    table = list(csv.reader(io.StringIO(info.value.path().read_text())))
    header = table[0]
    assert header[:4] == ["date", "platform", "runs", "credits"]
    assert re.fullmatch(r"key ak_…[0-9a-f]{4}", header[4]), header
    assert "project=checkout-suite" in header
    assert header[-2:] == ["project (other values)", "project (none)"]
    first_label = next(i for i, name in enumerate(header) if name.startswith("project"))
    for row in table[1:]:
        credits = int(row[3])
        assert sum(map(int, row[4:first_label])) == credits
        assert sum(map(int, row[first_label:])) == credits
    assert sum(int(row[3]) for row in table[1:]) > 0


def test_stop_at_the_allowance(page: Page, console_url: str) -> None:
    sign_in(page)
    panel = page.get_by_role("region", name="At the allowance")
    keep = panel.get_by_label(re.compile("^Keep running"))
    stop = panel.get_by_label(re.compile("^Stop at the allowance"))
    expect(keep).to_be_checked()
    save = panel.get_by_role("button", name="Save choice")
    expect(save).to_be_disabled()
    stop.check()
    save.click()
    expect(save).to_be_disabled()
    page.reload()
    expect(stop).to_be_checked()

    # Past the allowance (the free plan's 100 requests), a batch is refused and the panel says
    # since when.
    refused = meter(console_url, reveal_key(page), 1000)
    assert refused.status_code == 429, refused.text
    assert refused.json()["code"] == "AllowanceReached"
    page.reload()
    expect(
        panel.get_by_text(re.compile(r"^Stopped at the allowance on [A-Z][a-z]{2} \d"))
    ).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "spend_stop_at_allowance.png"), full_page=True)

    keep.check()
    save.click()
    expect(save).to_be_disabled()
    expect(panel.get_by_text(re.compile("^Stopped at the allowance on"))).to_have_count(0)
    page.reload()
    expect(keep).to_be_checked()
