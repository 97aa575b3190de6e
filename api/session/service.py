"""Sign-in rules (SPEC 4 "Login mode", 8 "Sign-in", "Forgot-password", "Code exchange"),
over the Cognito adapter."""

from __future__ import annotations

from typing import Any

import jwt
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    AuthResult,
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    NotAuthorizedError,
    OAuthError,
    Tokens,
    UserNotConfirmedError,
    UserNotFoundError,
)
from api.auth.tokens import AccessTokenVerifier, InvalidToken
from api.errors import (
    MustSignInWithGoogle,
    NotAuthenticated,
    PasswordResetUnavailable,
    ProviderRefused,
    UnableToAuthenticate,
    ValidationCodeExpired,
    VendorUnavailable,
)
from api.ratelimit.service import PasswordAttempts
from api.session import repository
from api.session.schemas import (
    ChallengeOut,
    CodeDeliveryOut,
    CodeExchangeResponse,
    FederatedIdentity,
    ForgotPasswordResponse,
    SignInResponse,
    TokensOut,
)

MUST_USE_GOOGLE = "This user must sign in with Google"
USER_DOES_NOT_EXIST = "User does not exist"


async def _refuse_if_google_required(db: AsyncSession, email: str) -> None:
    if await repository.account_requires_google(db, email):
        raise MustSignInWithGoogle()


def _provider_refused(exc: CognitoError) -> ProviderRefused:
    if isinstance(exc, UserNotConfirmedError):
        return ProviderRefused(MUST_USE_GOOGLE, exc.code)
    return ProviderRefused(exc.message, exc.code)


def _sign_in_response(result: AuthResult, username: str) -> SignInResponse:
    if result.tokens is not None:
        return SignInResponse(tokens=tokens_out(result.tokens))
    assert result.challenge is not None
    return SignInResponse(
        challenge=ChallengeOut(
            name=result.challenge.name,
            session=result.challenge.session,
            username=result.challenge.parameters.get("USER_ID_FOR_SRP", username),
        )
    )


def tokens_out(tokens: Tokens) -> TokensOut:
    """Adapter tokens to the wire shape."""
    return TokensOut(
        access_token=tokens.access_token,
        id_token=tokens.id_token,
        refresh_token=tokens.refresh_token,
        expires_in=tokens.expires_in,
    )


async def sign_in(
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    email: str,
    password: str,
) -> SignInResponse:
    """Password sign-in with USER_PASSWORD_AUTH (``email`` already lowercased and trimmed).

    Returns tokens, or the challenge with what answering it needs (its session and the
    username). Raises:
        RateLimited: too many attempts from this client address, or failures for this email.
        MustSignInWithGoogle: the user's account requires Google sign-in.
        ProviderRefused: code ``UserNotConfirmedException`` with 'This user must sign in with
            Google'; any other provider refusal with the provider's message (SPEC 8).
        VendorUnavailable: Cognito is unreachable.
    """
    await attempts.start(email)
    await _refuse_if_google_required(db, email)
    try:
        result = await cognito.initiate_password_auth(email, password)
    except CognitoError as exc:
        await attempts.failed(email)
        raise _provider_refused(exc) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    return _sign_in_response(result, email)


async def complete_new_password(
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    username: str,
    session: str,
    new_password: str,
) -> SignInResponse:
    """Answer NEW_PASSWORD_REQUIRED with the new password and given_name / family_name from
    our user record (SPEC 3 "Attributes on the new-password challenge").

    Returns tokens (or a further challenge, which the SPA reports by name, SPEC 8).
    Raises: RateLimited, MustSignInWithGoogle, ProviderRefused (e.g. an expired challenge
    session), VendorUnavailable.
    """
    await attempts.start(username)
    await _refuse_if_google_required(db, username)
    names = await repository.user_names(db, username)
    attributes = {}
    if names is not None:
        attributes = {"given_name": names[0], "family_name": names[1]}
    try:
        result = await cognito.respond_new_password(username, session, new_password, attributes)
    except CognitoError as exc:
        await attempts.failed(username)
        raise _provider_refused(exc) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    return _sign_in_response(result, username)


async def forgot_password(
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    email: str,
) -> ForgotPasswordResponse:
    """Have Cognito email a reset code (SPEC 4 forgot-password, SPEC 8 messages).

    Returns where the code went; ``code_delivery`` is null when Cognito answered
    NotAuthorizedException, which SPEC 8 ignores silently. Raises:
        RateLimited; MustSignInWithGoogle;
        ProviderRefused: 'User does not exist' (UserNotFoundException) or the provider's text;
        PasswordResetUnavailable: the answer has no delivery details;
        VendorUnavailable.
    """
    await attempts.count_always(email)
    await _refuse_if_google_required(db, email)
    try:
        delivery = await cognito.forgot_password(email)
    except NotAuthorizedError:
        return ForgotPasswordResponse(code_delivery=None)
    except UserNotFoundError as exc:
        raise ProviderRefused(USER_DOES_NOT_EXIST, exc.code) from exc
    except CognitoError as exc:
        raise ProviderRefused(exc.message, exc.code) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    if delivery is None:
        raise PasswordResetUnavailable()
    return ForgotPasswordResponse(
        code_delivery=CodeDeliveryOut(
            destination=delivery.destination,
            delivery_medium=delivery.delivery_medium,
            attribute_name=delivery.attribute_name,
        )
    )


async def confirm_forgot_password(
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    email: str,
    code: str,
    new_password: str,
) -> SignInResponse:
    """Set the new password with the emailed code, then sign in with it (SPEC 4: "After a
    successful reset the user is signed in automatically").

    Raises: RateLimited, MustSignInWithGoogle, ProviderRefused (wrong or expired code, with
    the provider's message), VendorUnavailable.
    """
    await attempts.start(email)
    await _refuse_if_google_required(db, email)
    try:
        await cognito.confirm_forgot_password(email, code, new_password)
        result = await cognito.initiate_password_auth(email, new_password)
    except UserNotFoundError as exc:
        raise ProviderRefused(USER_DOES_NOT_EXIST, exc.code) from exc
    except CognitoError as exc:
        await attempts.failed(email)  # a wrong or expired code
        raise _provider_refused(exc) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    return _sign_in_response(result, email)


def _id_claims(id_token: str) -> dict[str, Any]:
    # The ID token comes straight from the token endpoint over TLS, so its claims may be read
    # without checking the signature (OpenID Connect Core 3.1.3.7); the identity itself is
    # taken from the access token, which is verified.
    try:
        claims: dict[str, Any] = jwt.decode(id_token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return claims


async def exchange_code(
    cognito: CognitoClient, verifier: AccessTokenVerifier, code: str, redirect_uri: str
) -> CodeExchangeResponse:
    """Exchange the hosted UI's code for tokens (SPEC 7 "Token exchange").

    Returns the tokens and the identity (Cognito username from the verified access token;
    email and names from the ID token's claims). Raises:
        ValidationCodeExpired: ``invalid_grant`` (used, expired or unknown code).
        UnableToAuthenticate: any other failure, including an unverifiable token.
    """
    try:
        tokens = await cognito.exchange_code(code, redirect_uri)
        claims = await verifier.verify(tokens.access_token)
    except OAuthError as exc:
        if exc.error == "invalid_grant":
            raise ValidationCodeExpired() from exc
        raise UnableToAuthenticate() from exc
    except (CognitoUnavailable, InvalidToken) as exc:
        raise UnableToAuthenticate() from exc
    id_claims = _id_claims(tokens.id_token)
    return CodeExchangeResponse(
        tokens=tokens_out(tokens),
        identity=FederatedIdentity(
            username=claims.username,
            email=str(id_claims.get("email", "")),
            first_name=str(id_claims.get("given_name", "")),
            last_name=str(id_claims.get("family_name", "")),
        ),
    )


async def refresh(cognito: CognitoClient, refresh_token: str) -> TokensOut:
    """New access and ID tokens for a refresh token.

    Raises:
        NotAuthenticated: the refresh token is expired or revoked.
        VendorUnavailable: Cognito is unreachable.
    """
    try:
        return tokens_out(await cognito.refresh(refresh_token))
    except NotAuthorizedError as exc:
        raise NotAuthenticated(exc.message) from exc
    except CognitoError as exc:
        raise NotAuthenticated(exc.message) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc


async def sign_out(cognito: CognitoClient, access_token: str) -> None:
    """GlobalSignOut: revoke the user's refresh tokens everywhere.

    A token Cognito already considers revoked counts as signed out. Raises VendorUnavailable.
    """
    try:
        await cognito.global_sign_out(access_token)
    except NotAuthorizedError:
        return
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
