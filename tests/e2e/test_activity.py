"""The Activity page in the browser: the demo Owner renames the account
and finds it in the log, filters by action (the URL keeps the filter), loads older events
and exports the filtered log as CSV; the Admin reads it too; the Member has no Activity item.

The events come from the console's own writes (the UI, and the API as a script of the
customer's would call it), recorded by the write side: nothing is inserted behind its back.
Leaves the demo account's name as it found it.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from datetime import UTC, datetime, timedelta

from playwright.sync_api import Locator, Page, expect

from devstack.seed import DEMO_ACCOUNT, DEMO_EMAIL, DEMO_GOOGLE_EMAIL
from tests.e2e.conftest import ARTIFACTS, api_as, sign_in, sign_in_with_google

ADMIN_EMAIL = "grace@acme-robotics.dev"
RENAMES = 50  # with the UI's, more than a page (50) of renames
CHANGE = re.compile(r"^name: (.*) → (.*)$")


def rename_through_the_api(console_url: str, names: list[str]) -> None:
    """Rename the demo account to each of ``names`` in turn, as the demo Owner, with PUT
    /web/account (what a customer's script would do)."""
    with api_as(console_url) as api:
        for name in names:
            api.put("/web/account", json={"name": name}).raise_for_status()


def rows(page: Page) -> Locator:
    return page.get_by_role("table", name="Activity").locator("tbody tr")


def change_of(row: Locator) -> tuple[str, str]:
    """The (before, after) of the name in a "Renamed the account" row."""
    line = row.locator("td").nth(3).inner_text().strip()
    match = CHANGE.match(line)
    assert match, line
    return match.group(1), match.group(2)


def test_the_owner_reads_filters_pages_and_exports_the_log(page: Page, console_url: str) -> None:
    sign_in(page)
    try:
        # A change through the UI shows at the top of the log, with who, what and the change.
        page.get_by_label("Account Name").fill("Acme Robotics (audited)")
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.get_by_test_id("sidebar-account-name")).to_have_text("Acme Robotics (audited)")
        page.get_by_role("link", name="Activity").click()
        expect(page).to_have_url(re.compile(r"/activity$"))
        expect(page).to_have_title("Activity")
        newest = rows(page).first
        expect(newest.locator("td").nth(1)).to_contain_text("Ada Lovelace")
        expect(newest.locator("td").nth(1)).to_contain_text(DEMO_EMAIL)
        expect(newest.locator("td").nth(2)).to_contain_text("Renamed the account")
        expect(newest.locator("td").nth(3)).to_have_text(
            f"name: {DEMO_ACCOUNT} → Acme Robotics (audited)"
        )
        # The time in the reader's locale, UTC in its tooltip.
        stamp = newest.locator("time")
        expect(stamp).to_have_attribute(
            "title", re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$")
        )
        occurred = datetime.fromisoformat(stamp.get_attribute("datetime") or "")
        assert abs((datetime.now(UTC) - occurred).total_seconds()) < 120
        expect(newest.locator("td").nth(4)).to_have_text("127.0.0.1")
        page.screenshot(path=str(ARTIFACTS / "activity_owner.png"), full_page=True)

        # Older renames than one page holds, through the API.
        names = [f"Acme Robotics {i}" for i in range(1, RENAMES)] + [DEMO_ACCOUNT]
        rename_through_the_api(console_url, names)

        # Filter by action: the URL keeps it, so the view can be shared.
        page.reload()
        page.get_by_label("Action").select_option(label="Renamed the account")
        expect(page).to_have_url(re.compile(r"/activity\?action=account\.renamed$"))
        expect(rows(page)).to_have_count(50)
        expect(page.get_by_text("Showing the newest 50 events")).to_be_visible()
        expect(rows(page).first.locator("td").nth(3)).to_have_text(
            f"name: Acme Robotics {RENAMES - 1} → {DEMO_ACCOUNT}"
        )
        for cell in rows(page).locator("td:nth-child(3)").all():
            expect(cell).to_contain_text("Renamed the account")
        shared = page.url

        # Load more until the end: each rename once, in order (each one's "before" is the
        # next older one's "after"), across the page boundary.
        load_more = page.get_by_role("button", name="Load more")
        load_more.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "activity_load_more.png"))
        while load_more.is_visible():
            shown = rows(page).count()
            load_more.click()
            expect(rows(page)).not_to_have_count(shown)
        count = rows(page).count()
        assert count >= RENAMES + 1
        total = page.get_by_text(re.compile(rf"^{count} events$"))
        expect(total).to_be_visible()
        total.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "activity_all_loaded.png"))
        ours = [change_of(rows(page).nth(i)) for i in range(RENAMES + 1)]
        for newer, older in itertools.pairwise(ours):
            assert newer[0] == older[1], (newer, older)
        assert ours[-1] == (DEMO_ACCOUNT, "Acme Robotics (audited)")

        # Export the filtered log: the same events, as CSV.
        with page.expect_download() as info:
            page.get_by_role("button", name="Export CSV").click()
        download = info.value
        assert re.fullmatch(r"audit-log-\d{4}-\d\d-\d\d\.csv", download.suggested_filename)
        text = download.path().read_bytes().decode()
        assert text.startswith(
            "id,occurred_at,actor_id,actor_name,actor_email,client_address,action,"
            "target_type,target_id,target_label,changes\r\n"
        )
        exported = list(csv.DictReader(io.StringIO(text)))
        assert len(exported) == count
        assert {row["action"] for row in exported} == {"account.renamed"}
        assert exported[0]["actor_email"] == DEMO_EMAIL
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", exported[0]["occurred_at"])
        assert json.loads(exported[0]["changes"]) == {
            "name": {"from": f"Acme Robotics {RENAMES - 1}", "to": DEMO_ACCOUNT}
        }

        # The shared link opens the same filtered view.
        page.goto(shared)
        expect(page.get_by_label("Action")).to_have_value("account.renamed")
        expect(rows(page)).to_have_count(50)
    finally:
        rename_through_the_api(console_url, [DEMO_ACCOUNT])


def test_the_admin_reads_the_log(page: Page) -> None:
    sign_in(page, ADMIN_EMAIL)
    page.get_by_role("link", name="Activity").click()
    page.get_by_label("Who").select_option(label=f"Grace Hopper ({ADMIN_EMAIL})")
    expect(page).to_have_url(re.compile(r"/activity\?actor=[0-9a-f-]{36}$"))
    newest = rows(page).first
    expect(newest.locator("td").nth(1)).to_contain_text("Grace Hopper")
    expect(newest.locator("td").nth(2)).to_have_text("Signed in")
    expect(newest.locator("td").nth(3)).to_have_text("method: password")
    for cell in rows(page).locator("td:nth-child(2)").all():
        expect(cell).to_contain_text(ADMIN_EMAIL)
    page.screenshot(path=str(ARTIFACTS / "activity_admin.png"), full_page=True)

    # Days ahead hold nothing yet; Clear brings the whole log back.
    tomorrow = (datetime.now() + timedelta(days=1)).date().isoformat()
    page.get_by_label("From").fill(tomorrow)
    expect(page).to_have_url(re.compile(rf"&from={tomorrow}$"))
    expect(page.get_by_text("No events match these filters.")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "activity_empty.png"), full_page=True)
    page.get_by_role("button", name="Clear").click()
    expect(page).to_have_url(re.compile(r"/activity$"))
    expect(page.get_by_label("Who")).to_have_value("")
    expect(rows(page).first).to_be_visible()


def test_a_member_has_no_activity(page: Page) -> None:
    sign_in_with_google(page, DEMO_GOOGLE_EMAIL, "Katherine", "Johnson")
    expect(page).to_have_url(re.compile(r"/account$"))
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link")).to_have_count(3)
    expect(nav.get_by_role("link", name="Activity")).to_have_count(0)
    page.goto("/activity")
    expect(page.get_by_text("Only Owners and Admins can see the activity log")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/activity$"))  # signed in still, not sent to /login
    expect(page.get_by_role("table", name="Activity")).to_have_count(0)
