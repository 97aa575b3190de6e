"""Sign-in rules (SPEC 4 "Login mode", 8 "Sign-in"), over the Cognito adapter."""

from __future__ import annotations

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    NotAuthorizedError,
    Tokens,
    UserNotConfirmedError,
)
from api.errors import NotAuthenticated, ProviderRefused, VendorUnavailable
from api.session.schemas import ChallengeOut, SignInResponse, TokensOut

MUST_USE_GOOGLE = "This user must sign in with Google"


def tokens_out(tokens: Tokens) -> TokensOut:
    """Adapter tokens to the wire shape."""
    return TokensOut(
        access_token=tokens.access_token,
        id_token=tokens.id_token,
        refresh_token=tokens.refresh_token,
        expires_in=tokens.expires_in,
    )


async def sign_in(cognito: CognitoClient, email: str, password: str) -> SignInResponse:
    """Password sign-in with USER_PASSWORD_AUTH.

    Returns tokens, or the challenge with what answering it needs (its session and the
    username). Raises:
        ProviderRefused: code ``UserNotConfirmedException`` with 'This user must sign in with
            Google'; any other provider refusal with the provider's message (SPEC 8).
        VendorUnavailable: Cognito is unreachable.
    """
    try:
        result = await cognito.initiate_password_auth(email, password)
    except UserNotConfirmedError as exc:
        raise ProviderRefused(MUST_USE_GOOGLE, exc.code) from exc
    except CognitoError as exc:
        raise ProviderRefused(exc.message, exc.code) from exc
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    if result.tokens is not None:
        return SignInResponse(tokens=tokens_out(result.tokens))
    assert result.challenge is not None
    username = result.challenge.parameters.get("USER_ID_FOR_SRP", email)
    return SignInResponse(
        challenge=ChallengeOut(
            name=result.challenge.name, session=result.challenge.session, username=username
        )
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
