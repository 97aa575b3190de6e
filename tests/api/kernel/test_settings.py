"""The settings (api/kernel/config.py): in sections in the code, read from the same flat
environment variables as ever, every one of them documented for operators."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from api.kernel.config import Settings, SsoSettings
from devstack.services import ROOT

CONFIGURATION_PAGE = ROOT / "docs" / "operators" / "configuration.md"


def test_every_setting_is_documented_for_operators() -> None:
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", Path(CONFIGURATION_PAGE).read_text()))
    assert Settings.names() - documented == set()


def test_each_variable_belongs_to_one_setting() -> None:
    variables = [v for model in Settings.sections().values() for v in model.variables().values()]
    process = [name for name in Settings.model_fields if name not in Settings.sections()]
    assert len(variables) == len(set(variables))
    assert len(Settings.names()) == len(variables) + len(process)
    assert {"DATABASE_URL", "STRIPE_SECRET_KEY", "SIGN_IN_LIMIT_PER_ADDRESS"} <= Settings.names()


def test_the_environment_fills_the_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://console@db:5432/console")
    monkeypatch.setenv("STRIPE_SECRET_KEY", "sk_test_1")
    monkeypatch.setenv("dns_nameservers", '["10.0.0.2"]')  # without case, a JSON list
    monkeypatch.setenv("SCIM_LIMIT_PER_TOKEN", "77")  # the older name still read
    monkeypatch.setenv("BILLING_RECONCILE_FIX", "true")
    monkeypatch.setenv("MAIL", "/var/mail/root")  # a shell's, named like a section: not ours
    settings = Settings()
    assert settings.database_url == "postgresql+asyncpg://console@db:5432/console"
    assert settings.stripe.secret_key == SecretStr("sk_test_1")
    assert settings.dns.nameservers == ["10.0.0.2"]
    assert settings.directory.scim_limit_per_account == 77
    assert settings.billing.reconcile_fix is True
    assert settings.mail.smtp_port == 587  # the defaults of the rest
    assert settings.value("SCIM_LIMIT_PER_ACCOUNT") == 77
    assert settings.value("dns_port") == 53


def test_arguments_name_the_variables_and_win_over_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SMTP_PORT", "2525")
    monkeypatch.setenv("REGISTRATION_LIMIT_PER_ADDRESS", "7")
    settings = Settings(smtp_port=26, environment="development")
    assert (settings.mail.smtp_port, settings.environment) == (26, "development")
    assert settings.sign_in.registration_limit_per_address == 7
    changed = settings.updated(registration_limit_per_address=2, dns_port=5353)
    assert changed.sign_in.registration_limit_per_address == 2
    assert (changed.dns.port, changed.mail.smtp_port) == (5353, 26)
    assert settings.sign_in.registration_limit_per_address == 7  # frozen: a copy changed


def test_a_wrong_value_is_refused_naming_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORPHAN_USER_AGE_MIN", "1")
    with pytest.raises(ValidationError, match=r"membership\.ORPHAN_USER_AGE_MIN"):
        Settings()
    monkeypatch.delenv("ORPHAN_USER_AGE_MIN")
    with pytest.raises(ValidationError, match=r"sign_in\.SIGN_IN_LIMIT_PER_ADDRESS"):
        Settings().updated(sign_in_limit_per_address="many")
    with pytest.raises(ValidationError, match="SAML_UPKEEP_CRON: 'hourly' is not a cron"):
        Settings(saml_upkeep_cron="hourly")
    with pytest.raises(KeyError):
        Settings().value("NO_SUCH_SETTING")


def test_a_section_is_a_frozen_model_of_its_own() -> None:
    sso = SsoSettings(saml_upkeep_cron="")  # by field name, or by variable
    assert SsoSettings.model_validate({"SAML_UPKEEP_CRON": ""}) == sso
    with pytest.raises(ValidationError):
        sso.saml_upkeep_cron = "* * * * *"  # type: ignore[misc]
    assert Settings(sso=sso).sso.saml_upkeep_cron == ""
