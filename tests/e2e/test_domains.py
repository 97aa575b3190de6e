"""The domain box of User Management's Security section (SPEC 9): add a domain,
publish its TXT record through the dev stack's DNS stand-in, verify it, remove it; and the
Google option disabled with its tooltip until a domain is verified."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import Page, expect

from tests.e2e.conftest import ARTIFACTS, publish_txt, sign_in_with_google

NO_DOMAIN_TOOLTIP = "Verify your company's domain under Domains below before requiring Google SSO."


def _new_google_account(page: Page, email: str) -> None:
    """Sign a new Google identity in through the hosted-UI stand-in and create its account."""
    sign_in_with_google(page, email, "Dora", "Main")
    expect(page).to_have_url(re.compile(r"/oauth/sso\?code="))
    page.get_by_label("Account name").fill("Dora's Domains")
    page.get_by_role("button", name="Complete Registration").click()
    expect(page).to_have_url(re.compile(r"/account$"))
    page.get_by_role("link", name="User Management").click()


def _google_option(page: Page):  # type: ignore[no-untyped-def]
    return page.get_by_role("radio", name=re.compile("^Google"))


def _expect_google_disabled_with_tooltip(page: Page) -> None:
    expect(_google_option(page)).to_be_disabled()
    _google_option(page).locator("xpath=ancestor::span[@tabindex]").hover()
    expect(page.get_by_role("tooltip").filter(has_text="Domains below")).to_have_text(
        NO_DOMAIN_TOOLTIP
    )


def test_add_verify_and_remove_a_domain(page: Page, console_url: str) -> None:
    domain = f"dora-{secrets.token_hex(3)}.dev"
    _new_google_account(page, f"dora@{domain}")
    box = page.get_by_role("region", name="Domains")
    expect(box).to_contain_text("No domains yet.")
    _expect_google_disabled_with_tooltip(page)

    # A public email domain is refused with its reason.
    box.get_by_label("Domain", exact=True).fill("gmail.com")
    box.get_by_role("button", name="Add domain").click()
    expect(box).to_contain_text("Public email domains such as gmail.com cannot be added")

    box.get_by_label("Domain", exact=True).fill(f" {domain.upper()} ")
    box.get_by_role("button", name="Add domain").click()
    item = box.get_by_role("listitem", name=domain)
    expect(item).to_contain_text("Pending")
    expect(item).to_contain_text("Never checked")
    expect(item).to_contain_text("Add this TXT record at the domain's apex")
    value = item.get_by_test_id("txt-value")
    expect(value).to_have_text(re.compile(r"^autostep-verification=[\w-]{32}$"))
    box_width = box.bounding_box()
    assert box_width is not None and 600 <= box_width["width"] <= 620, box_width

    # Copy the record as a user would.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=console_url)
    item.get_by_role("button", name="Copy TXT record").click()
    expect(page.get_by_role("tooltip").filter(has_text="Copied!")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == value.inner_text()

    # Verify before publishing: the domain does not exist in DNS yet.
    item.get_by_role("button", name=f"Verify {domain}").click()
    expect(item).to_contain_text("Failed")
    expect(item).to_contain_text(f"{domain} does not exist in DNS: check its spelling.")
    expect(item).to_contain_text("Checked just now")
    box.screenshot(path=str(ARTIFACTS / "domain_box_failed.png"))

    # Publish the record (the stand-in plays the DNS provider), then Verify.
    publish_txt(console_url, domain, "v=spf1 -all", value.inner_text())
    item.get_by_role("button", name=f"Verify {domain}").click()
    expect(item).to_contain_text("Verified")
    expect(item).to_contain_text("Keep this TXT record published")
    expect(_google_option(page)).to_be_enabled()
    box.screenshot(path=str(ARTIFACTS / "domain_box_verified.png"))

    # Google SSO can now be required for the verified domain.
    _google_option(page).click()
    dialog = page.get_by_role("dialog", name="Enable Google Single Sign-on")
    expect(dialog).to_contain_text(domain)
    dialog.get_by_role("button", name="Cancel").click()

    # Remove it, after the confirmation.
    item.get_by_role("button", name=f"Remove {domain}").click()
    dialog = page.get_by_role("dialog", name="Remove Domain")
    expect(dialog).to_contain_text(f"People with an address at {domain} will no longer")
    dialog.get_by_role("button", name="Remove").click()
    expect(box.get_by_role("listitem", name=domain)).to_have_count(0)
    expect(box).to_contain_text("No domains yet.")
    _expect_google_disabled_with_tooltip(page)


def test_a_lost_domain_shows_why(page: Page, console_url: str) -> None:
    domain = f"lost-{secrets.token_hex(3)}.dev"
    _new_google_account(page, f"dora@{domain}")
    box = page.get_by_role("region", name="Domains")
    box.get_by_label("Domain", exact=True).fill(domain)
    box.get_by_role("button", name="Add domain").click()
    item = box.get_by_role("listitem", name=domain)
    publish_txt(console_url, domain, "autostep-verification=someone-elses-token")
    item.get_by_role("button", name=f"Verify {domain}").click()
    expect(item).to_contain_text("has a different token: copy the record shown here exactly")
    publish_txt(console_url, domain, item.get_by_test_id("txt-value").inner_text())
    item.get_by_role("button", name=f"Verify {domain}").click()
    expect(item).to_contain_text("Verified")
    # The record goes; the next check (here: pressing Verify) finds it gone.
    publish_txt(console_url, domain)
    item.get_by_role("button", name=f"Verify {domain}").click()
    expect(item).to_contain_text("Lost")
    expect(item).to_contain_text(f"No autostep-verification TXT record was found at {domain}")
    box.screenshot(path=str(ARTIFACTS / "domain_box_lost.png"))
