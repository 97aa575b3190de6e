"""Wire shapes of the session domain (SPEC 3 "Session", 7 identity provider calls)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field

from api.identity.mfa.schemas import AuthenticatorCode
from api.identity.sign_in import rules
from api.kernel.schemas import (
    ACCOUNT_NAME_REQUIRED,
    REQUIRED,
    AccountName,
    ApiModel,
    Email,
    FieldRule,
    PersonName,
    Required,
    Text,
    ValidEmail,
)
from api.models import Role

EMAIL_REQUIRED = "Email address is required"  # SPEC 5 Login, reset screens
PASSWORD_MAX_LENGTH = 256
# SPEC 5's password rule as a pattern (see ApiModel on `$(?!\n)`): 12+ characters, a digit
# and a character other than a letter or digit, no control characters and no space (Cognito
# refuses white space in a new password: rules.has_whitespace).
PASSWORD_PATTERN = (
    r"^(?=[^\x00-\x20\x7f]*\d)(?=[^\x00-\x20\x7f]*[^A-Za-z0-9\x00-\x20\x7f])"  # noqa: S105
    r"[^\x00-\x20\x7f]{12,}$(?!\n)"
)


@dataclass(frozen=True, slots=True)
class NewPassword(FieldRule):
    """A password being chosen: blank is refused with ``message`` (the screen's SPEC 5 text),
    a weak one with SPEC 5's rule, one with a space with 'Password must not contain spaces'
    (Cognito's own limit); the schema carries the rules as ``minLength`` and
    :data:`PASSWORD_PATTERN`."""

    message: str
    schema: ClassVar[dict[str, Any]] = {
        "minLength": rules.PASSWORD_MIN_LENGTH,
        "pattern": PASSWORD_PATTERN,
    }

    def check(self, value: str) -> str:
        """``value``, or ``ValueError`` with the blank message, SPEC 5's rule or the
        spaces one."""
        if not value:
            raise ValueError(self.message)
        if not rules.is_strong_password(value):
            raise ValueError(rules.PASSWORD_RULE)
        if rules.has_whitespace(value):
            raise ValueError(rules.PASSWORD_NO_SPACES)
        return value


Password = Annotated[str, Text(PASSWORD_MAX_LENGTH)]


def _without_white_space(value: str) -> str:
    return "".join(value.split())


EmailedCode = Annotated[
    str, Text(64), AfterValidator(_without_white_space), Required("Verification code is required")
]
"""A code Cognito emailed (password reset, email verification) as typed or pasted: white space
in it is dropped, since Cognito's ConfirmationCodeType (``[\\S]+``) refuses it."""

ChallengeSession = Annotated[str, Text(4096, min_length=20)]
"""The opaque ``Session`` of a Cognito sign-in challenge, sent back as it came: 20 to 4,096
characters, as Cognito's SessionType allows (AdminRespondToAuthChallenge in botocore's
cognito-idp model); anything else is refused here rather than by Cognito."""


class SessionUser(ApiModel):
    """The signed-in user."""

    id: uuid.UUID
    first_name: str
    last_name: str
    email: str
    elevation_role: str | None = None
    role: Role = Field(description="What the user may do in the account: Owner, Admin or Member.")
    email_verified: bool = Field(
        description=(
            "Whether the user proved their email address (a registrant enters the code "
            "Cognito emailed them); until then inviting users, domains and single sign-on "
            "answer 403 EmailVerificationRequired."
        )
    )


class SessionAccount(ApiModel):
    """The signed-in user's account, as the sidebar shows it."""

    name: str


class Session(ApiModel):
    """A user's sign-in session."""

    user: SessionUser
    account: SessionAccount


class SessionResponse(ApiModel):
    """``GET /web/session`` body."""

    session: Session


class SignInRequest(ApiModel):
    """Password sign-in. The email is lowercased and trimmed before use (SPEC 5 Login)."""

    email: Annotated[Email, Required(EMAIL_REQUIRED)]
    password: Annotated[Password, Required("Password is required")]


class Tokens(ApiModel):
    """Cognito access and ID tokens; ``expires_in`` is the access token's lifetime in seconds.
    The refresh token is never in a body: it is set as an httpOnly cookie that only
    ``POST /web/session/refresh`` receives (api/identity/sign_in/cookies.py)."""

    access_token: str
    id_token: str
    expires_in: int


class Challenge(ApiModel):
    """A challenge to answer before tokens are issued (e.g. NEW_PASSWORD_REQUIRED)."""

    name: str
    session: str
    username: str


class SignInResponse(ApiModel):
    """Exactly one of ``tokens`` and ``challenge`` is set."""

    tokens: Tokens | None = None
    challenge: Challenge | None = None
    two_step_setup_required: bool = Field(
        default=False,
        description="With tokens: the user must set up two-step sign-in before anything "
        "else (their account requires it, it was reset, or they signed in with a recovery "
        "code); until then the tokens work only for /web/two-step-sign-in and its set-up.",
    )


class PasskeySignInStart(ApiModel):
    """Start a passkey sign-in: the email (Cognito needs the user: there is no sign-in with
    a passkey alone); lowercased and trimmed."""

    email: Annotated[Email, Required(EMAIL_REQUIRED)]


class PasskeySignInOptions(ApiModel):
    """What ``navigator.credentials.get`` needs, and the session to answer in."""

    session: str = Field(description="The sign-in's session: send it back with the answer.")
    options: dict[str, Any] = Field(
        description="The PublicKeyCredentialRequestOptions as JSON, for "
        "``PublicKeyCredential.parseRequestOptionsFromJSON`` (``challenge``, ``rpId``, "
        "``allowCredentials``, ``userVerification``, ``timeout``)."
    )


class PasskeySignInRequest(ApiModel):
    """The passkey's answer: the email and session of ``POST /web/session/passkey/options``
    and the browser's AuthenticationResponseJSON (``PublicKeyCredential.toJSON()`` of
    ``navigator.credentials.get``)."""

    email: Annotated[Email, Required(EMAIL_REQUIRED)]
    session: ChallengeSession
    credential: dict[str, Any]


class TwoStepCodeRequest(ApiModel):
    """Answer to the SOFTWARE_TOKEN_MFA challenge of a sign-in: the 6-digit code of the
    user's authenticator app. ``username`` is the challenge's, as the sign-in answered it;
    the user is the one whose password opened the challenge, however it is spelled."""

    username: Annotated[str, Text(320, min_length=1)]
    session: ChallengeSession
    code: AuthenticatorCode


class RecoveryCodeSignInRequest(ApiModel):
    """Sign in with a recovery code in place of the authenticator app's code: the email and
    password again (the console keeps no password between requests) and one unused code."""

    email: Annotated[Email, Required(EMAIL_REQUIRED)]
    password: Annotated[Password, Required("Password is required")]
    recovery_code: Annotated[str, Text(64), Required("Enter a recovery code")]


class CompleteNewPasswordRequest(ApiModel):
    """Answer to the NEW_PASSWORD_REQUIRED challenge of a sign-in (SPEC 4)."""

    username: Annotated[str, Text(320, min_length=1)]
    session: ChallengeSession
    new_password: Annotated[Password, NewPassword("A new password is required")]


class ForgotPasswordRequest(ApiModel):
    """Ask for a password-reset code by email (SPEC 4 forgot-password)."""

    email: Annotated[Email, Required(EMAIL_REQUIRED)]


class CodeDelivery(ApiModel):
    """Where the reset code went, e.g. destination ``a***@e***``, medium ``EMAIL``."""

    destination: str
    delivery_medium: str
    attribute_name: str


class ForgotPasswordResponse(ApiModel):
    """``code_delivery`` is null when the provider refused silently (SPEC 8:
    NotAuthorizedException is ignored): the screen stays as it is."""

    code_delivery: CodeDelivery | None


class EmailVerificationResponse(ApiModel):
    """Where Cognito sent the email verification code (null when it did not say)."""

    code_delivery: CodeDelivery | None


class EmailVerificationConfirm(ApiModel):
    """The code Cognito emailed to the signed-in user's address."""

    code: EmailedCode


class ConfirmForgotPasswordRequest(ApiModel):
    """The emailed code and the new password (SPEC 4 complete-forgot-password)."""

    email: Annotated[Email, Required(EMAIL_REQUIRED)]
    code: EmailedCode
    new_password: Annotated[Password, NewPassword("Enter a new password")]


class AuthorizeRequest(ApiModel):
    """Start a hosted-UI sign-in (SPEC 2 /oauth/google/login, /oauth/github/login):
    the provider name and where the hosted UI sends the browser back (``/oauth/sso``)."""

    identity_provider: Literal["Google", "Github"]
    redirect_uri: Annotated[str, Text(2048, min_length=1)]


class SsoAuthorizeRequest(ApiModel):
    """Start 'Sign in with SSO' (README "SAML single sign-on"): the work email, whose domain
    leads to its account's SAML connection, and where the hosted UI sends the browser back
    (``/oauth/sso``)."""

    email: Annotated[Email, Required(EMAIL_REQUIRED), ValidEmail("Enter your work email address")]
    redirect_uri: Annotated[str, Text(2048, min_length=1)]


class AuthorizeResponse(ApiModel):
    """Where to send the browser: the hosted UI's authorize page with ``state`` and a PKCE
    challenge, bound to this browser by the ``oauth_flow`` cookie set with this response."""

    authorize_url: str


class CodeExchangeRequest(ApiModel):
    """The hosted UI's authorization code, the ``state`` it came back with, and the redirect
    URI it was issued for."""

    code: Annotated[str, Text(2048, min_length=1)]
    state: Annotated[str, Text(256, min_length=1)]
    redirect_uri: Annotated[str, Text(2048, min_length=1)]


class FederatedIdentity(ApiModel):
    """Who signed in with the identity provider (claims of its ID token, SPEC 7).

    ``username`` is the Cognito username, e.g. ``google_1234``; names may be empty.
    """

    username: str
    email: str
    first_name: str
    last_name: str


class CodeExchangeResponse(ApiModel):
    """Tokens of the third-party sign-in and the identity they belong to."""

    tokens: Tokens
    identity: FederatedIdentity


class RegistrationRequest(ApiModel):
    """The registration form (SPEC 3). Every field is required ('Required'); the email is a
    business email, lowercased and trimmed; names are trimmed; the password follows SPEC 5."""

    first_name: Annotated[PersonName, Required(REQUIRED)]
    last_name: Annotated[PersonName, Required(REQUIRED)]
    email_address: Annotated[Email, Required(REQUIRED), ValidEmail(rules.BUSINESS_EMAIL)]
    organization_name: Annotated[AccountName, Required(REQUIRED)]
    new_password: Annotated[Password, NewPassword(REQUIRED)]


class SsoAccount(ApiModel):
    """An account the identity may join (SPEC 3 "SSO join candidate")."""

    account_id: uuid.UUID
    account_name: str
    users_count: int
    refusal: str | None = Field(
        description="Why this identity cannot join the account (it removed this person: "
        "'You were removed from {account}. Ask an Owner or Admin to invite you again.'); "
        "null when it can join."
    )


class SsoAccountsResponse(ApiModel):
    """Accounts with Google SSO on for the identity's email domain, and that domain."""

    accounts: list[SsoAccount]
    domain: str


class SsoJoinRequest(ApiModel):
    """SPEC 3 "Join payload"."""

    account_id: uuid.UUID
    user_first_name: PersonName
    user_last_name: PersonName
    user_email: Email
    user_identity_id: Annotated[str, Text(255, min_length=1)]


class SsoCreateRequest(ApiModel):
    """SPEC 3 "Create-account payload"; the account name is trimmed and must not be empty."""

    account_name: Annotated[AccountName, Required(ACCOUNT_NAME_REQUIRED)]
    user_first_name: PersonName
    user_last_name: PersonName
    user_email: Email
    user_identity_id: Annotated[str, Text(255, min_length=1)]
