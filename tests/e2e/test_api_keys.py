"""API keys in the browser: masked by default, Reveal and Hide, Roll key with an
overlap (the old key listed with its countdown and Expire now)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, sign_in


def test_reveal_roll_and_expire(page: Page) -> None:
    sign_in(page)
    panel = page.get_by_role("region", name="Account Configuration")
    current = panel.get_by_test_id("api-key")
    expect(current).to_have_text(re.compile(r"^ak_…[0-9a-f]{4}$"))
    masked = current.inner_text()

    panel.get_by_role("button", name="Reveal").click()
    expect(current).to_have_text(re.compile(r"^ak_[0-9a-f]{40}$"))
    assert current.inner_text().endswith(masked[-4:])
    panel.get_by_role("button", name="Hide").click()
    expect(current).to_have_text(masked)

    panel.get_by_role("button", name="Roll key").click()
    dialog = page.get_by_role("dialog", name="Roll API key")
    dialog.get_by_label("1 hour").check()
    page.screenshot(path=str(ARTIFACTS / "account_api_keys_roll_dialog.png"))
    dialog.get_by_role("button", name="Roll key").click()
    expect(dialog).to_be_hidden()
    expect(current).not_to_have_text(masked)
    old = panel.get_by_test_id("old-api-key")
    expect(old).to_have_text(masked)
    expect(panel.get_by_text(re.compile(r"stops working in (59m|1h 0m)"))).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "account_api_keys_rolled.png"), full_page=True)

    panel.get_by_role("button", name="Expire now").click()
    expect(old).to_be_hidden()
    expect(panel.get_by_test_id("api-key")).to_have_count(1)
