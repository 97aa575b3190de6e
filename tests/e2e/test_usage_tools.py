"""Account Information's usage tools in the browser: the CSV export of a billing
cycle (beside where its requests went) and the usage alert settings. Leaves the demo
account's settings as it found them."""

from __future__ import annotations

import csv
import io

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, sign_in


def test_download_a_cycle_as_csv(page: Page) -> None:
    sign_in(page)
    overview = page.get_by_role("region", name="Where the requests went")
    cycle = overview.get_by_label("Billing cycle")
    # One option per cycle the graph shows (the demo account's are 7), newest first.
    expect(cycle.locator("option").first).to_contain_text("(current)")
    assert cycle.locator("option").count() == 7
    cycle.select_option(index=1)  # the previous cycle: seeded usage
    with page.expect_download() as info:
        overview.get_by_role("button", name="Download CSV").click()
    download = info.value
    assert download.suggested_filename.startswith("usage-")
    assert download.suggested_filename.endswith(".csv")
    path = download.path()
    table = list(csv.DictReader(io.StringIO(path.read_text())))
    assert table and list(table[0])[:4] == ["date", "platform", "runs", "credits"]
    assert {row["platform"] for row in table} == {"web", "nativeMobile", "api"}
    assert sum(int(row["credits"]) for row in table) > 0


def test_alert_settings_are_saved(page: Page) -> None:
    sign_in(page)
    panel = page.get_by_role("region", name="Usage alerts")
    fifty = panel.get_by_label("50 % of the allowance")
    expect(fifty).to_be_checked()
    expect(panel.get_by_role("checkbox")).to_have_count(3 + 3)  # thresholds, demo users
    save = panel.get_by_role("button", name="Save alerts")
    expect(save).to_be_disabled()
    fifty.uncheck()
    save.click()
    expect(save).to_be_disabled()
    page.screenshot(path=str(ARTIFACTS / "account_usage_alerts.png"), full_page=True)
    page.reload()
    expect(panel.get_by_label("50 % of the allowance")).not_to_be_checked()
    expect(panel.get_by_label("80 % of the allowance")).to_be_checked()
    # The demo account as it was.
    panel.get_by_label("50 % of the allowance").check()
    panel.get_by_role("button", name="Save alerts").click()
    expect(panel.get_by_role("button", name="Save alerts")).to_be_disabled()
    page.reload()
    expect(panel.get_by_label("50 % of the allowance")).to_be_checked()
