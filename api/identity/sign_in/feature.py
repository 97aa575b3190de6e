"""Sign-in (password, Google/GitHub and SAML sign-in, registration, refresh): what it brings
to the app (api/feature.py)."""

from __future__ import annotations

from api.feature import Feature
from api.identity.sign_in.router import router
from api.identity.sign_in.throttles import (
    EMAIL_VERIFICATION,
    REGISTRATION,
    SESSION_REFRESH,
    SESSION_TOKEN,
    SSO_ACCOUNTS,
)
from api.principal.dependencies import PASSWORD_ATTEMPTS

FEATURE = Feature(
    name="sign-in",
    routers=(router,),
    throttles=(
        PASSWORD_ATTEMPTS,
        REGISTRATION,
        EMAIL_VERIFICATION,
        SESSION_TOKEN,
        SESSION_REFRESH,
        SSO_ACCOUNTS,
    ),
)
