"""Session routes (SPEC 7): the signed-in session, password sign-in and its challenge,
password reset, the hosted UI's code exchange, refresh, sign-out, registration, and the
account choice after third-party sign-in (sso-accounts)."""

from typing import Annotated

from fastapi import APIRouter, Cookie, Depends, Query, Request, Response

from api.identity.membership.pool_users import PoolUsers
from api.identity.mfa.errors import RecoveryCodeMismatch, TwoStepCodeUsed, TwoStepSignInExpired
from api.identity.sign_in import email_verification, registration, saml_test, service, sso_accounts
from api.identity.sign_in.cookies import (
    OAUTH_COOKIE,
    REFRESH_COOKIE,
    SAML_TEST_COOKIE,
    SessionCookies,
    parse_oauth_flow,
)
from api.identity.sign_in.errors import (
    EmailAlreadyVerified,
    EmailNotVerified,
    InvalidEmailProvider,
    InvitationExpired,
    MustSignInWithGoogle,
    MustSignInWithSso,
    NoPasskey,
    PasswordResetUnavailable,
    SsoNotConfigured,
    SsoSignInRefused,
    UnableToAuthenticate,
    ValidationCodeExpired,
    VerificationCodeExpired,
    VerificationCodeMismatch,
)
from api.identity.sign_in.schemas import (
    AuthorizeRequest,
    AuthorizeResponse,
    CodeExchangeRequest,
    CodeExchangeResponse,
    CompleteNewPasswordRequest,
    ConfirmForgotPasswordRequest,
    EmailVerificationConfirm,
    EmailVerificationResponse,
    ForgotPasswordRequest,
    ForgotPasswordResponse,
    PasskeySignInOptions,
    PasskeySignInRequest,
    PasskeySignInStart,
    RecoveryCodeSignInRequest,
    RegistrationRequest,
    SessionResponse,
    SignInRequest,
    SignInResponse,
    SsoAccountsResponse,
    SsoAuthorizeRequest,
    SsoCreateRequest,
    SsoJoinRequest,
    Tokens,
    TwoStepCodeRequest,
)
from api.identity.sign_in.throttles import (
    EMAIL_VERIFICATION,
    REGISTRATION,
    SESSION_REFRESH,
    SESSION_TOKEN,
    SSO_ACCOUNTS,
)
from api.identity.sso.errors import SamlConnectionRequired, SamlTestFailed
from api.identity.sso.schemas import SamlTestResponse, SamlTestResult, SamlTestStart
from api.kernel.errors import (
    BadRequest,
    Conflict,
    EmailInUse,
    NotFound,
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
    error_responses,
)
from api.kernel.http.etags import (
    CONDITIONAL_GET_RESPONSES,
    IF_NONE_MATCH_PARAMETER,
    conditional_json,
)
from api.principal.dependencies import (
    AccountThrottle,
    AddressThrottle,
    Audit,
    Claims,
    ClientAddress,
    Cognito,
    CurrentUser,
    DbSession,
    OptionalAccessToken,
    PasswordAttemptsDep,
    Permit,
    ReadEngine,
    SettingsDep,
    SignIns,
    TokenVerifier,
)
from api.principal.errors import (
    AccessDeactivated,
    AccountRequired,
    Forbidden,
    NotAuthenticated,
    RemovedFromAccount,
    SignInPolicyRefusal,
)
from api.principal.roles import Permission

router = APIRouter(prefix="/web", tags=["session"])


async def _session_cookies(settings: SettingsDep, response: Response) -> SessionCookies:
    return SessionCookies(settings, response)


Cookies = Annotated[SessionCookies, Depends(_session_cookies)]


async def _password_flow(
    db: DbSession,
    cognito: Cognito,
    verifier: TokenVerifier,
    attempts: PasswordAttemptsDep,
    sign_ins: SignIns,
    cookies: Cookies,
) -> service.PasswordSignIn:
    return service.PasswordSignIn(
        db=db,
        cognito=cognito,
        verifier=verifier,
        attempts=attempts,
        sign_ins=sign_ins,
        cookies=cookies,
    )


PasswordFlow = Annotated[service.PasswordSignIn, Depends(_password_flow)]

_PASSWORD_ERRORS = (
    AccessDeactivated,
    InvitationExpired,
    MustSignInWithGoogle,
    MustSignInWithSso,
    ProviderRefused,
    RateLimited,
    RequestValidationFailed,
    VendorUnavailable,
)


@router.get(
    "/session",
    response_model=SessionResponse,
    responses={
        **error_responses(NotAuthenticated, AccountRequired, SignInPolicyRefusal),
        **CONDITIONAL_GET_RESPONSES,
    },
    openapi_extra=IF_NONE_MATCH_PARAMETER,
    dependencies=[Permit(Permission.SELF)],
)
async def get_session(caller: CurrentUser, request: Request) -> Response:
    """The signed-in user and their account's name. Reads only our database. An
    If-None-Match naming the current body's ETag is answered 304 with no body."""
    return conditional_json(service.session_view(caller), request)


_EMAIL_VERIFICATION_ERRORS = (
    NotAuthenticated,
    AccountRequired,
    SignInPolicyRefusal,
    EmailAlreadyVerified,
    RateLimited,
    ProviderRefused,
    RequestValidationFailed,
    VendorUnavailable,
)


@router.post(
    "/session/email-verification",
    status_code=200,
    response_model=EmailVerificationResponse,
    dependencies=[Permit(Permission.SELF), AccountThrottle(EMAIL_VERIFICATION)],
    responses=error_responses(*_EMAIL_VERIFICATION_ERRORS),
)
async def send_email_verification(
    caller: CurrentUser, cognito: Cognito, token: OptionalAccessToken
) -> EmailVerificationResponse:
    """Have Cognito email the signed-in user a code that verifies their address (Resend:
    each code replaces the last)."""
    # ``token`` is the bearer token CurrentUser just verified.
    return await email_verification.send_code(
        cognito=cognito, caller=caller, access_token=token or ""
    )


@router.post(
    "/session/email-verification/confirm",
    status_code=204,
    response_class=Response,
    dependencies=[Permit(Permission.SELF), AccountThrottle(EMAIL_VERIFICATION)],
    responses=error_responses(
        *_EMAIL_VERIFICATION_ERRORS, VerificationCodeMismatch, VerificationCodeExpired
    ),
)
async def confirm_email_verification(
    body: EmailVerificationConfirm,
    caller: CurrentUser,
    db: DbSession,
    cognito: Cognito,
    token: OptionalAccessToken,
) -> Response:
    """Enter the emailed code: once Cognito accepts it, the address is verified and the
    actions that wait for it (inviting users, domains, single sign-on) open."""
    await email_verification.confirm(
        db=db, cognito=cognito, caller=caller, access_token=token or "", code=body.code
    )
    return Response(status_code=204)


@router.post(
    "/session/sign-in",
    status_code=200,
    response_model=SignInResponse,
    responses=error_responses(*_PASSWORD_ERRORS),
    openapi_extra={
        "security": [],
        "requestBody": {
            "content": {
                "application/json": {
                    "examples": {
                        "password": {
                            "summary": "Email and password",
                            "value": {
                                "email": "ada@acme-robotics.dev",
                                "password": "c0rrect-h0rse",
                            },
                        }
                    }
                }
            }
        },
    },
    dependencies=[Permit(Permission.PUBLIC)],
)
async def sign_in(
    body: SignInRequest,
    flow: PasswordFlow,
) -> SignInResponse:
    """Sign in with email and password: tokens, or a challenge to answer (SPEC 4)."""
    return await service.sign_in(
        flow=flow,
        email=body.email,
        password=body.password,
    )


@router.post(
    "/session/passkey/options",
    status_code=200,
    response_model=PasskeySignInOptions,
    responses=error_responses(*_PASSWORD_ERRORS, NoPasskey),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def start_passkey_sign_in(
    body: PasskeySignInStart, flow: PasswordFlow
) -> PasskeySignInOptions:
    """Start signing in with a passkey (README "Passkeys"): the options for
    ``navigator.credentials.get`` and the session to answer in. An email without a passkey
    and an unknown one get the same ``NoPasskey``."""
    return await service.passkey_options(flow=flow, email=body.email)


@router.post(
    "/session/passkey",
    status_code=200,
    response_model=SignInResponse,
    responses=error_responses(*_PASSWORD_ERRORS, NoPasskey, UnableToAuthenticate),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def sign_in_with_passkey(body: PasskeySignInRequest, flow: PasswordFlow) -> SignInResponse:
    """Sign in with the passkey's answer: tokens (the refresh token as its cookie), as a
    password sign-in gives. A passkey is two factors in one: no two-step code follows."""
    return await service.passkey_sign_in(
        flow=flow, email=body.email, session=body.session, credential=body.credential
    )


@router.post(
    "/session/complete-new-password",
    status_code=200,
    response_model=SignInResponse,
    responses=error_responses(*_PASSWORD_ERRORS),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def complete_new_password(
    body: CompleteNewPasswordRequest,
    flow: PasswordFlow,
) -> SignInResponse:
    """Answer the NEW_PASSWORD_REQUIRED challenge of a sign-in with a new password."""
    return await service.complete_new_password(
        flow=flow,
        username=body.username,
        session=body.session,
        new_password=body.new_password,
    )


@router.post(
    "/session/two-step-code",
    status_code=200,
    response_model=SignInResponse,
    responses=error_responses(*_PASSWORD_ERRORS, TwoStepCodeUsed, TwoStepSignInExpired),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def answer_two_step_code(body: TwoStepCodeRequest, flow: PasswordFlow) -> SignInResponse:
    """Answer a sign-in's SOFTWARE_TOKEN_MFA challenge with the 6-digit code of the user's
    authenticator app (README "Two-step sign-in")."""
    # ``body.username`` names no one here: the challenge says whose it is.
    return await service.answer_two_step_code(flow=flow, session=body.session, code=body.code)


@router.post(
    "/session/recovery-code",
    status_code=200,
    response_model=SignInResponse,
    responses=error_responses(*_PASSWORD_ERRORS, RecoveryCodeMismatch),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def sign_in_with_recovery_code(
    body: RecoveryCodeSignInRequest, flow: PasswordFlow
) -> SignInResponse:
    """Sign in with email, password and one of the user's recovery codes in place of the
    authenticator app's code; each code works once, and a new set-up of two-step sign-in is
    then due (``twoStepSetupRequired``)."""
    return await service.sign_in_with_recovery_code(
        flow=flow, email=body.email, password=body.password, recovery_code=body.recovery_code
    )


@router.post(
    "/session/forgot-password",
    status_code=200,
    response_model=ForgotPasswordResponse,
    responses=error_responses(*_PASSWORD_ERRORS, PasswordResetUnavailable),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def forgot_password(
    body: ForgotPasswordRequest,
    db: DbSession,
    cognito: Cognito,
    attempts: PasswordAttemptsDep,
) -> ForgotPasswordResponse:
    """Email a password-reset code (SPEC 4 forgot-password)."""
    return await service.forgot_password(
        db=db, cognito=cognito, attempts=attempts, email=body.email
    )


@router.post(
    "/session/confirm-forgot-password",
    status_code=200,
    response_model=SignInResponse,
    responses=error_responses(*_PASSWORD_ERRORS),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def confirm_forgot_password(
    body: ConfirmForgotPasswordRequest,
    flow: PasswordFlow,
) -> SignInResponse:
    """Set a new password with the emailed code, end the sessions the old one opened, and
    sign in with the new one."""
    return await service.confirm_forgot_password(
        flow=flow,
        email=body.email,
        code=body.code,
        new_password=body.new_password,
    )


@router.post(
    "/session/authorize",
    status_code=200,
    response_model=AuthorizeResponse,
    responses=error_responses(RequestValidationFailed, VendorUnavailable),
    openapi_extra={"security": []},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def authorize(
    body: AuthorizeRequest, cognito: Cognito, cookies: Cookies
) -> AuthorizeResponse:
    """Start a Google or GitHub sign-in: the hosted UI's authorize URL with a fresh ``state``
    and PKCE challenge; sets the httpOnly ``oauth_flow`` cookie that the code exchange needs."""
    return service.start_oauth(
        cognito=cognito,
        cookies=cookies,
        identity_provider=body.identity_provider,
        redirect_uri=body.redirect_uri,
    )


@router.post(
    "/session/token",
    status_code=200,
    response_model=CodeExchangeResponse,
    dependencies=[Permit(Permission.PUBLIC), AddressThrottle(SESSION_TOKEN)],
    responses=error_responses(
        ValidationCodeExpired,
        UnableToAuthenticate,
        SsoSignInRefused,
        RemovedFromAccount,
        RateLimited,
        RequestValidationFailed,
        VendorUnavailable,
    ),
    openapi_extra={"security": []},
)
async def exchange_code(
    body: CodeExchangeRequest,
    db: DbSession,
    sign_ins: SignIns,
    cognito: Cognito,
    verifier: TokenVerifier,
    cookies: Cookies,
    settings: SettingsDep,
    address: ClientAddress,
    oauth_flow: Annotated[str | None, Cookie(alias=OAUTH_COOKIE)] = None,
) -> CodeExchangeResponse:
    """Exchange the hosted UI's authorization code for tokens (SPEC 7 "Token exchange"), in
    the browser that started the sign-in (``oauth_flow`` cookie: state and PKCE verifier).
    Sets the refresh token cookie. The first sign-in through a SAML connection creates the
    person's user in its account (or links the user of that email there); a person the
    account's directory provisioned lands in the account with no join step."""
    return await service.exchange_code(
        db=db,
        sign_ins=sign_ins,
        cognito=cognito,
        verifier=verifier,
        cookies=cookies,
        flow=parse_oauth_flow(oauth_flow),
        code=body.code,
        state=body.state,
        redirect_uri=body.redirect_uri,
        client_address=address,
    )


@router.post(
    "/session/authorize/sso",
    status_code=200,
    response_model=AuthorizeResponse,
    dependencies=[Permit(Permission.PUBLIC), AddressThrottle(SSO_ACCOUNTS)],
    responses=error_responses(
        SsoNotConfigured, RateLimited, RequestValidationFailed, VendorUnavailable
    ),
    openapi_extra={"security": []},
)
async def authorize_sso(
    body: SsoAuthorizeRequest, db: DbSession, cognito: Cognito, cookies: Cookies
) -> AuthorizeResponse:
    """Start 'Sign in with SSO': the hosted UI's authorize URL for the SAML connection of the
    work email's domain (``idp_identifier``), with ``state`` and PKCE as for Google; sets the
    ``oauth_flow`` cookie. A domain with no connection: 400 'No single sign-on is set up for
    {domain}.'"""
    return await service.start_sso(
        db=db, cognito=cognito, cookies=cookies, email=body.email, redirect_uri=body.redirect_uri
    )


_SAML_TEST_ERRORS = (
    NotAuthenticated,
    AccountRequired,
    SignInPolicyRefusal,
    Forbidden,
    SamlConnectionRequired,
    RequestValidationFailed,
    VendorUnavailable,
)


@router.post(
    "/sso/saml/test",
    status_code=200,
    response_model=AuthorizeResponse,
    dependencies=[Permit(Permission.SSO_WRITE)],
    responses=error_responses(*_SAML_TEST_ERRORS),
    tags=["sso"],
)
async def start_saml_test(
    body: SamlTestStart, caller: CurrentUser, db: DbSession, cognito: Cognito, cookies: Cookies
) -> AuthorizeResponse:
    """Start a test sign-in through the account's SAML connection, to open in a new window:
    the hosted UI's authorize URL for it; sets the ``saml_test_flow`` cookie its result
    needs. The test never signs this browser in."""
    return await saml_test.start_test(
        db=db, caller=caller, cognito=cognito, cookies=cookies, redirect_uri=body.redirect_uri
    )


@router.post(
    "/sso/saml/test/result",
    status_code=200,
    response_model=SamlTestResponse,
    dependencies=[Permit(Permission.SSO_WRITE)],
    responses=error_responses(*_SAML_TEST_ERRORS, SamlTestFailed),
    tags=["sso"],
)
async def finish_saml_test(
    body: SamlTestResult,
    caller: CurrentUser,
    db: DbSession,
    audit: Audit,
    cognito: Cognito,
    verifier: TokenVerifier,
    cookies: Cookies,
    settings: SettingsDep,
    saml_test_flow: Annotated[str | None, Cookie(alias=SAML_TEST_COOKIE)] = None,
) -> SamlTestResponse:
    """The test window's code, exchanged in the browser that started the test: what the
    identity provider sent (email, names) and what is wrong with it, if anything."""
    return SamlTestResponse(
        test=await saml_test.finish_test(
            db=db,
            caller=caller,
            audit=audit,
            cognito=cognito,
            verifier=verifier,
            cookies=cookies,
            flow=parse_oauth_flow(saml_test_flow),
            code=body.code,
            state=body.state,
            redirect_uri=body.redirect_uri,
        )
    )


@router.post(
    "/session/refresh",
    status_code=200,
    response_model=Tokens,
    dependencies=[Permit(Permission.PUBLIC), AddressThrottle(SESSION_REFRESH)],
    responses=error_responses(
        NotAuthenticated,
        SignInPolicyRefusal,
        RateLimited,
        RequestValidationFailed,
        VendorUnavailable,
    ),
    openapi_extra={"security": []},
)
async def refresh(
    cognito: Cognito,
    verifier: TokenVerifier,
    reads: ReadEngine,
    cookies: Cookies,
    refresh_token: Annotated[str | None, Cookie(alias=REFRESH_COOKIE)] = None,
) -> Tokens:
    """New access and ID tokens for the browser's refresh token cookie (httpOnly, sent to
    the session routes only): how a reloaded page gets its session back, if the account's
    sign-in policy still lets the user act."""
    return await service.refresh(
        cognito=cognito,
        verifier=verifier,
        read_engine=reads,
        cookies=cookies,
        refresh_token=refresh_token,
    )


@router.post(
    "/session/sign-out",
    status_code=204,
    response_class=Response,
    responses=error_responses(RequestValidationFailed, VendorUnavailable),
    # The access token is optional: with it, the user's tokens issued until now stop working.
    openapi_extra={"security": [{}, {"HTTPBearer": []}]},
    dependencies=[Permit(Permission.PUBLIC)],
)
async def sign_out(
    db: DbSession,
    cognito: Cognito,
    verifier: TokenVerifier,
    cookies: Cookies,
    token: OptionalAccessToken,
    refresh_token: Annotated[str | None, Cookie(alias=REFRESH_COOKIE)] = None,
) -> None:
    """Sign this browser out: its refresh token is revoked at Cognito and its cookie
    cleared, and the user's access tokens issued until now stop working (other devices get
    new ones at their next refresh); the SPA then drops its tokens."""
    await service.sign_out(
        db=db,
        cognito=cognito,
        verifier=verifier,
        cookies=cookies,
        access_token=token,
        refresh_token=refresh_token,
    )


@router.post(
    "/registration",
    status_code=201,
    response_model=Tokens,
    dependencies=[Permit(Permission.PUBLIC), AddressThrottle(REGISTRATION)],
    responses=error_responses(
        RateLimited,
        InvalidEmailProvider,
        EmailInUse,
        ProviderRefused,
        RequestValidationFailed,
        VendorUnavailable,
    ),
    openapi_extra={"security": []},
)
async def register(
    body: RegistrationRequest,
    db: DbSession,
    cognito: Cognito,
    verifier: TokenVerifier,
    sign_ins: SignIns,
    settings: SettingsDep,
    cookies: Cookies,
    pool_users: PoolUsers,
) -> Tokens:
    """Register with the form (SPEC 3): a new account and its first user, signed in; Cognito
    emails the code that verifies the address."""
    return await registration.register(
        db=db,
        cognito=cognito,
        verifier=verifier,
        sign_ins=sign_ins,
        settings=settings,
        cookies=cookies,
        pool_users=pool_users,
        form=body,
    )


@router.get(
    "/sso-accounts",
    status_code=200,
    response_model=SsoAccountsResponse,
    dependencies=[Permit(Permission.SELF), AddressThrottle(SSO_ACCOUNTS)],
    responses=error_responses(
        NotAuthenticated,
        BadRequest,
        EmailNotVerified,
        RateLimited,
        RequestValidationFailed,
        VendorUnavailable,
    ),
)
async def get_sso_accounts(
    claims: Claims,
    db: DbSession,
    cognito: Cognito,
    settings: SettingsDep,
    cognito_id: Annotated[str, Query(alias="cognitoId", min_length=1, max_length=255)],
    email: Annotated[str, Query(min_length=1, max_length=320)],
) -> SsoAccountsResponse:
    """Accounts the signed-in Google identity may join, and its email domain (SPEC 7)."""
    claimed = sso_accounts.ClaimedIdentity(identity_id=cognito_id, email=email)
    return await sso_accounts.lookup(
        db=db, cognito=cognito, settings=settings, claims=claims, claimed=claimed
    )


@router.post(
    "/sso-accounts/join",
    status_code=204,
    response_class=Response,
    responses=error_responses(
        NotAuthenticated,
        BadRequest,
        NotFound,
        Conflict,
        RemovedFromAccount,
        EmailNotVerified,
        EmailInUse,
        RequestValidationFailed,
        VendorUnavailable,
    ),
    dependencies=[Permit(Permission.SELF)],
)
async def join_sso_account(
    body: SsoJoinRequest,
    claims: Claims,
    db: DbSession,
    cognito: Cognito,
    settings: SettingsDep,
    address: ClientAddress,
) -> Response:
    """Join an account that has Google SSO on for the identity's email domain (SPEC 7), as a
    Member (README "Roles and invitations")."""
    await sso_accounts.join(
        db=db,
        cognito=cognito,
        settings=settings,
        claims=claims,
        client_address=address,
        account_id=body.account_id,
        claimed=_claimed(body),
    )
    return Response(status_code=204)


@router.post(
    "/sso-accounts/create",
    status_code=204,
    response_class=Response,
    responses=error_responses(
        NotAuthenticated,
        BadRequest,
        Conflict,
        EmailNotVerified,
        EmailInUse,
        RequestValidationFailed,
        VendorUnavailable,
    ),
    dependencies=[Permit(Permission.SELF)],
)
async def create_sso_account(
    body: SsoCreateRequest, claims: Claims, db: DbSession, cognito: Cognito, settings: SettingsDep
) -> Response:
    """Create a new account for the third-party identity (SPEC 4 needsAccount)."""
    await sso_accounts.create(
        db=db,
        cognito=cognito,
        settings=settings,
        claims=claims,
        account_name=body.account_name,
        claimed=_claimed(body),
    )
    return Response(status_code=204)


def _claimed(body: SsoJoinRequest | SsoCreateRequest) -> sso_accounts.ClaimedIdentity:
    """The identity a join or create-account request speaks for, as one value."""
    return sso_accounts.ClaimedIdentity(
        identity_id=body.user_identity_id,
        email=body.user_email,
        first_name=body.user_first_name,
        last_name=body.user_last_name,
    )
