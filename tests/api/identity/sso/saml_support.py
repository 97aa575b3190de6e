"""Metadata documents of a test SAML identity provider, for the set-up tests (README "SAML
single sign-on")."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from devstack.saml_idp import SigningKey, make_signing_key, metadata_xml

IDP_ENTITY_ID = "https://idp.example-idp.com/app/metadata"
IDP_SSO_URL = "https://idp.example-idp.com/app/sso"


def signing_key(days_left: int = 3650) -> SigningKey:
    """A key whose certificate expires in ``days_left`` days (negative: expired that long
    ago), made once per test run."""
    return _signing_key(days_left)


@functools.cache
def _signing_key(days_left: int) -> SigningKey:
    folder = Path(tempfile.mkdtemp(prefix="saml-idp-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # kept for the whole run
    start = datetime.now(UTC) - timedelta(days=400)
    valid_for = datetime.now(UTC) + timedelta(days=days_left) - start
    return make_signing_key(folder, valid_for=valid_for, valid_from=start)


def idp_metadata(days_left: int = 3650, entity_id: str = IDP_ENTITY_ID) -> str:
    """The identity provider's metadata, its certificate expiring in ``days_left`` days."""
    return metadata_xml(
        entity_id=entity_id,
        sso_url=IDP_SSO_URL,
        certificate_base64=signing_key(days_left).certificate_base64,
    )
