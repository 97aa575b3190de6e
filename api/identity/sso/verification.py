"""What proves a domain (README "Verified domains"): the TXT record, how a domain name is read, and
what a lookup's answer means. Pure functions: the lookup itself is the DNS adapter's.

The record is published at the domain's apex (like Google's ``google-site-verification``):

    example.com.  TXT  "autostep-verification=<token>"

an ``attribute=value`` string (RFC 1464) whose token is random per account and domain.
"""

from __future__ import annotations

import re

from api.adapters.dns_resolver import TxtLookup
from api.models import DomainFailure

RECORD_TYPE = "TXT"
RECORD_ATTRIBUTE = "autostep-verification"
_PREFIX = RECORD_ATTRIBUTE + "="

# RFC 1035 2.3.1 with RFC 1123 2.1 (a label may start with a digit): letters, digits and
# inner hyphens, 1 to 63 characters. Internationalised names go in their xn-- (A-label) form.
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
MAX_DOMAIN_LENGTH = 253

FAILURE_MESSAGES: dict[DomainFailure, str] = {
    DomainFailure.DOMAIN_NOT_FOUND: "{domain} does not exist in DNS: check its spelling.",
    DomainFailure.RECORD_NOT_FOUND: (
        "No autostep-verification TXT record was found at {domain}. Add the record at your "
        "DNS provider; a new record can take a few minutes to appear."
    ),
    DomainFailure.WRONG_TOKEN: (
        "The autostep-verification TXT record at {domain} has a different token: copy the "
        "record shown here exactly."
    ),
    DomainFailure.VERIFIED_BY_ANOTHER_ACCOUNT: (
        "Another account has verified {domain} and its TXT record is still published."
    ),
}


def normalize_domain(value: str) -> str:
    """A domain as typed to the form we store: trimmed, lowercased, without the root's
    trailing dot (``" Example.COM. "`` -> ``"example.com"``)."""
    return value.strip().lower().removesuffix(".")


def is_domain_name(domain: str) -> bool:
    """Whether a normalised ``domain`` is a registrable-looking host name: at least two
    labels, each per :data:`_LABEL`, at most 253 characters, and a top-level label that is
    not all digits (so an IPv4 address is not a domain)."""
    labels = domain.split(".")
    return (
        len(domain) <= MAX_DOMAIN_LENGTH
        and len(labels) >= 2
        and all(_LABEL.match(label) for label in labels)
        and not labels[-1].isdigit()
    )


def record_value(token: str) -> str:
    """The TXT value to publish: ``autostep-verification=<token>``."""
    return _PREFIX + token


def failure_of(lookup: TxtLookup, token: str) -> DomainFailure | None:
    """Why ``lookup`` (the TXT records at the domain's apex) does not prove ``token``, or None
    when one of its values is exactly :func:`record_value` of it (surrounding white space
    ignored, as DNS consoles add it)."""
    if not lookup.exists:
        return DomainFailure.DOMAIN_NOT_FOUND
    ours = [v.strip() for v in lookup.values if v.strip().startswith(_PREFIX)]
    if not ours:
        return DomainFailure.RECORD_NOT_FOUND
    if record_value(token) not in ours:
        return DomainFailure.WRONG_TOKEN
    return None


def proves(lookup: TxtLookup, token: str) -> bool:
    """Whether ``lookup`` holds the record of ``token``."""
    return failure_of(lookup, token) is None


def failure_message(failure: DomainFailure, domain: str) -> str:
    """The console's sentence for ``failure`` at ``domain``."""
    return FAILURE_MESSAGES[failure].format(domain=domain)
