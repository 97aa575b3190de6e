"""The test sign-in of an account's SAML connection (README "SAML single sign-on", set-up).

An Owner or Admin checks the connection before anyone depends on it: the console opens the
hosted UI's authorize page for the connection (``identity_provider=<its name>``) in a new
window, with its own ``state`` and PKCE verifier kept in the ``saml_test_flow`` cookie; the
person signs in at the identity provider, which posts its response to Cognito, and Cognito
sends the window back to the console's ``/oauth/saml-test`` page with a code. That page hands
the code to the window that started the test, which sends it here: the code is exchanged
(with the verifier), the identity Cognito made of the response is read back (AdminGetUser:
what the identity provider sent, through the attribute mapping), and what is wrong with it
is named. The test's tokens are revoked at once: a test never signs this browser in, and
creates no user of ours.
"""

from __future__ import annotations

import contextlib

from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import CognitoClient, CognitoError, CognitoUnavailable
from api.audit import AuditTrail
from api.identity.cognito_errors import cognito_errors
from api.identity.sign_in.cookies import SAML_TEST_COOKIE, SAML_TEST_PATH, SessionCookies
from api.identity.sign_in.errors import UnableToAuthenticate, ValidationCodeExpired
from api.identity.sign_in.schemas import AuthorizeResponse
from api.identity.sign_in.service import redeem_code, start_oauth
from api.identity.sso import saml
from api.identity.sso.errors import SamlTestFailed
from api.identity.sso.schemas import SamlTest
from api.principal.identity import prove_identity
from api.principal.principal import Caller
from api.principal.tokens import AccessTokenVerifier

NOT_STARTED = (
    "This test sign-in was not started in this browser, or another one was started since. "
    "Press Test sign-in again."
)
CODE_REFUSED = (
    "Cognito refused the test sign-in's code (used or expired). Press Test sign-in again."
)


async def start_test(
    *,
    db: AsyncSession,
    caller: Caller,
    cognito: CognitoClient,
    cookies: SessionCookies,
    redirect_uri: str,
) -> AuthorizeResponse:
    """The authorize URL of a test sign-in through the caller's account's connection (the
    ``saml_test_flow`` cookie holds its state and verifier).

    Raises: SamlConnectionRequired (no connection yet), VendorUnavailable.
    """
    provider_name = await saml.provider_name_for_test(db=db, caller=caller)
    return start_oauth(
        cognito=cognito,
        cookies=cookies,
        redirect_uri=redirect_uri,
        identity_provider=provider_name,
        flow_cookie=(SAML_TEST_COOKIE, SAML_TEST_PATH),
    )


async def finish_test(
    *,
    db: AsyncSession,
    caller: Caller,
    audit: AuditTrail,
    cognito: CognitoClient,
    verifier: AccessTokenVerifier,
    cookies: SessionCookies,
    flow: tuple[str, str] | None,
    code: str,
    state: str,
    redirect_uri: str,
) -> SamlTest:
    """Exchange the test window's code in the browser that started the test, and report what
    the identity provider sent and what is wrong with it (recorded on the connection and in
    the audit log).

    Raises:
        SamlTestFailed: no test started in this browser, a state that is not its own, or a
            code Cognito refused.
        SamlConnectionRequired: the connection was removed meanwhile.
        VendorUnavailable: Cognito could not be reached.
    """
    cookies.end_oauth_flow(name=SAML_TEST_COOKIE, path=SAML_TEST_PATH)
    try:
        tokens, claims = await redeem_code(
            cognito=cognito,
            verifier=verifier,
            flow=flow,
            code=code,
            state=state,
            redirect_uri=redirect_uri,
        )
    except ValidationCodeExpired as exc:
        raise SamlTestFailed(CODE_REFUSED) from exc
    except UnableToAuthenticate as exc:
        raise SamlTestFailed(NOT_STARTED) from exc
    if tokens.refresh_token:
        with contextlib.suppress(CognitoError, CognitoUnavailable):
            await cognito.revoke_token(tokens.refresh_token)
    async with cognito_errors(refused=lambda _: SamlTestFailed(CODE_REFUSED)):
        user = await cognito.admin_get_user(claims.username)
    identity = prove_identity(user)
    return await saml.record_test(db=db, caller=caller, audit=audit, identity=identity)
