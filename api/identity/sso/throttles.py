"""Single sign-on's throttles (README "Sign-in and abuse limits"), listed by
api/identity/sso/feature.py."""

from __future__ import annotations

from api.ratelimit import HOUR_S, Throttle

DOMAIN_VERIFY = Throttle(
    "domain-verify",
    window_s=HOUR_S,
    per_address="DOMAIN_VERIFY_LIMIT_PER_ADDRESS",
    per_account="DOMAIN_VERIFY_LIMIT_PER_ACCOUNT",
)
"""Domain Verify checks (each asks DNS) per hour."""

SAML_METADATA = Throttle(
    "saml-metadata",
    window_s=HOUR_S,
    per_address="SAML_METADATA_LIMIT_PER_ADDRESS",
    per_account="SAML_METADATA_LIMIT_PER_ACCOUNT",
)
"""SAML set-up saves (each reads the identity provider's metadata, fetching a metadata URL, and
asks Cognito) per hour."""
