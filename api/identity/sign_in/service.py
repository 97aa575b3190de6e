"""Sign-in rules (SPEC 4 "Login mode", 8 "Sign-in", "Forgot-password", "Code exchange"),
over the Cognito adapter."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import jwt
import orjson
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from api.adapters.cognito import (
    AuthResult,
    CognitoClient,
    CognitoError,
    CognitoUnavailable,
    NotAuthorizedError,
    NoVerifiedAddressError,
    OAuthError,
    PasskeysNotEnabledError,
    UserNotFoundError,
)
from api.adapters.cognito import CodeDelivery as CognitoCodeDelivery
from api.adapters.cognito import Tokens as CognitoTokens
from api.audit import SigningIn, SignInLog
from api.identity.cognito_errors import cognito_errors, refusal
from api.identity.mfa import service as two_step
from api.identity.mfa.errors import RecoveryCodeMismatch, TwoStepSignInExpired
from api.identity.passkeys import service as passkeys
from api.identity.sessions import service as sessions
from api.identity.sign_in import repository
from api.identity.sign_in.cookies import OAUTH_COOKIE, OAUTH_PATH, SessionCookies
from api.identity.sign_in.errors import (
    InvitationExpired,
    MustSignInWithGoogle,
    MustSignInWithSso,
    NoPasskey,
    PasswordResetUnavailable,
    SsoNotConfigured,
    SsoSignInRefused,
    UnableToAuthenticate,
    ValidationCodeExpired,
)
from api.identity.sign_in.schemas import (
    AuthorizeResponse,
    Challenge,
    CodeDelivery,
    CodeExchangeResponse,
    FederatedIdentity,
    ForgotPasswordResponse,
    PasskeySignInOptions,
    SignInResponse,
    Tokens,
)
from api.identity.sign_in.sso_accounts import land_provisioned_user
from api.identity.sso import saml
from api.kernel.emails import email_domain
from api.kernel.errors import AppError, ProviderRefused, VendorUnavailable, WrongCredential
from api.models import AuthType, SignInMethod, User
from api.principal import principal
from api.principal.errors import (
    AccessDeactivated,
    IdentityProviderUnavailable,
    NotAuthenticated,
    SignInPolicyRefusal,
)
from api.principal.identity import asserted_provider, prove_identity
from api.principal.principal import Caller
from api.principal.sessions import end_sessions
from api.principal.tokens import (
    AccessClaims,
    AccessTokenVerifier,
    IdentityProviderDown,
    InvalidToken,
)
from api.ratelimit import PasswordAttempts


def session_view(caller: Caller) -> bytes:
    """``GET /web/session``'s body for ``caller``: ``SessionResponse`` (the user's id, names,
    email, elevation role, role and whether their email is verified, the account's name) as
    UTF-8 JSON, serialised once with orjson straight from the caller lookup's record, without
    building the pydantic models (a test holds it equal to ``SessionResponse``'s own output)."""
    return orjson.dumps(
        {
            "session": {
                "user": {
                    "id": str(caller.user_id),
                    "firstName": caller.first_name,
                    "lastName": caller.last_name,
                    "email": caller.email,
                    "elevationRole": caller.elevation_role,
                    "role": caller.role.value,
                    "emailVerified": caller.email_verified,
                },
                "account": {"name": caller.account_name},
            }
        }
    )


async def _refuse_by_policy(db: AsyncSession, email: str, *, invitation: bool = True) -> None:
    """Refuse a password sign-in (or reset) the account's sign-in policy forbids before
    asking Cognito, with the sign-in screen's messages; the same rules bind every request
    (``api.principal.principal``). ``invitation``: also refuse an expired invitation (Cognito
    expires the temporary password too, TemporaryPasswordValidityDays; this holds the
    console's own validity whatever the pool says)."""
    state = await repository.sign_in_state(db, email)
    if state is None:
        return
    if state.required is AuthType.GOOGLE_SSO:
        raise MustSignInWithGoogle()
    if state.required is AuthType.SAML_SSO:
        raise MustSignInWithSso()
    if state.deactivated:
        raise AccessDeactivated()
    if invitation and state.invitation_expired:
        raise InvitationExpired()


def _refuse_former_address(username: str | None) -> str:
    """``username`` as :func:`repository.password_username` found it; None is a renamed
    user's former address (README "Directory sync (SCIM)"), refused as Cognito refuses a
    wrong password (raised inside ``cognito_errors``: the same answer, a failed attempt)."""
    if username is None:
        raise NotAuthorizedError("NotAuthorizedException", "Incorrect username or password.")
    return username


@asynccontextmanager
async def _logged(sign_ins: SignInLog, username: str, method: str) -> AsyncIterator[None]:
    """Record a refused sign-in of ``username`` (a wrong password or code, a user who must
    use Google, an expired invitation) in their account's audit log, then let it raise."""
    try:
        yield
    except (
        ProviderRefused,
        WrongCredential,
        MustSignInWithGoogle,
        MustSignInWithSso,
        InvitationExpired,
        AccessDeactivated,
    ):
        await sign_ins.failed(username, method)
        raise


# How each password flow (the audit log's method) starts its session (README "Sessions").
_SESSION_METHODS = {
    "recovery code": SignInMethod.RECOVERY_CODE,
    "passkey": SignInMethod.PASSKEY,
}


async def signed_in(
    *,
    db: AsyncSession,
    sign_ins: SignInLog,
    claims: AccessClaims,
    method: str,
    session_method: SignInMethod | None = None,
) -> SigningIn | None:
    """A sign-in succeeded with the token of ``claims``: it starts a session (README
    "Sessions"; ``session_method``, by default the password flow's), the user of that username
    is bound to the token's pool user (``sub``), their first sign-in ends a Pending invitation,
    and each is recorded in the account's audit log, in the request's transaction. An identity
    without a user yet (a federated one choosing an account) has its session, nothing else.
    Returns who signed in (None: nobody we know)."""
    await sessions.start(
        db,
        claims=claims,
        method=session_method or _SESSION_METHODS.get(method, SignInMethod.PASSWORD),
        user_agent=sign_ins.user_agent,
        client_address=sign_ins.client_address,
        console_url=sign_ins.console_url,
    )
    user = await repository.mark_signed_in(db, claims.username, claims.sub)
    if user is not None:
        await sign_ins.succeeded(db, user, method)
    return user


async def verified_claims(*, verifier: AccessTokenVerifier, tokens: CognitoTokens) -> AccessClaims:
    """The claims of an access token Cognito just issued (verified like any other)."""
    try:
        return await verifier.verify(tokens.access_token)
    except InvalidToken as exc:
        raise UnableToAuthenticate() from exc
    except IdentityProviderDown as exc:
        raise VendorUnavailable() from exc


@dataclass(frozen=True, slots=True, kw_only=True)
class PasswordSignIn:
    """What every password flow (sign-in, the new-password answer, reset confirmation) works
    with: the request's transaction, Cognito, the token verifier, the attempt counters of
    README "Sign-in and abuse limits", the sign-in audit log and the browser's cookies."""

    db: AsyncSession
    cognito: CognitoClient
    verifier: AccessTokenVerifier
    attempts: PasswordAttempts
    sign_ins: SignInLog
    cookies: SessionCookies


async def _sign_in_response(
    flow: PasswordSignIn, method: str, result: AuthResult, username: str
) -> SignInResponse:
    """What a password flow answers with Cognito's ``result``: the tokens (the sign-in
    recorded, and whether a set-up of two-step sign-in must come first), or the challenge to
    answer."""
    if result.tokens is not None:
        await signed_in(
            db=flow.db,
            sign_ins=flow.sign_ins,
            claims=await verified_claims(verifier=flow.verifier, tokens=result.tokens),
            method=method,
        )
        return SignInResponse(
            tokens=tokens_out(result.tokens, flow.cookies),
            two_step_setup_required=await two_step.setup_due_for(flow.db, username),
        )
    assert result.challenge is not None
    if result.challenge.name == two_step.SOFTWARE_TOKEN_MFA:
        await two_step.hold_challenge(flow.db, username, result.challenge.session)
    return SignInResponse(
        challenge=Challenge(
            name=result.challenge.name,
            session=result.challenge.session,
            username=result.challenge.parameters.get("USER_ID_FOR_SRP", username),
        )
    )


async def _password_auth(flow: PasswordSignIn, username: str, password: str) -> AuthResult:
    """AdminInitiateAuth with the password, holding the console's two-step sign-in: a user
    who has it on here must get the SOFTWARE_TOKEN_MFA challenge (README "Two-step sign-in"),
    whatever Cognito's own setting says. When Cognito issued tokens instead (MFA was turned
    off at Cognito behind the console, e.g. with the user's access token), they are revoked,
    MFA is turned on again at Cognito, and the password is tried again.

    Raises: CognitoError, CognitoUnavailable (as ``CognitoClient.password_auth``).
    """
    result = await flow.cognito.password_auth(username, password)
    if result.tokens is None or not await two_step.is_on(flow.db, username):
        return result
    result = await two_step.password_auth_with_mfa_on(
        flow.cognito, username, password, result.tokens
    )
    if result.tokens is not None:
        raise CognitoUnavailable("Cognito signs in without the code of an authenticator app")
    return result


def tokens_out(tokens: CognitoTokens, cookies: SessionCookies) -> Tokens:
    """Adapter tokens to the wire shape: the refresh token goes to its httpOnly cookie, the
    access and ID tokens to the body."""
    cookies.keep_refresh_token(tokens.refresh_token)
    return Tokens(
        access_token=tokens.access_token,
        id_token=tokens.id_token,
        expires_in=tokens.expires_in,
    )


async def sign_in(
    *,
    flow: PasswordSignIn,
    email: str,
    password: str,
) -> SignInResponse:
    """Password sign-in, server-side (AdminInitiateAuth; ``email`` already lowercased and
    trimmed). Successes and refusals go to the account's audit log.

    Returns tokens, or the challenge with what answering it needs (its session and the
    username). Raises:
        RateLimited: too many attempts from this client address, or failures for this email.
        MustSignInWithGoogle, MustSignInWithSso: the user must sign in with Google, or
            through their account's SAML connection.
        AccessDeactivated: the user's access is turned off.
        InvitationExpired: an invited user whose invitation expired before they signed in.
        ProviderRefused: code ``UserNotConfirmedException`` with 'This user must sign in with
            Google'; any other provider refusal with the provider's message (SPEC 8).
        VendorUnavailable: Cognito is unreachable.
    """
    found = await repository.password_username(flow.db, email)
    async with (
        _logged(flow.sign_ins, found or email, "password"),
        flow.attempts.attempt(email),
        cognito_errors(),
    ):
        username = _refuse_former_address(found)
        await _refuse_by_policy(flow.db, username)
        result = await _password_auth(flow, username, password)
    return await _sign_in_response(flow, "password", result, username)


async def complete_new_password(
    *,
    flow: PasswordSignIn,
    username: str,
    session: str,
    new_password: str,
) -> SignInResponse:
    """Answer NEW_PASSWORD_REQUIRED with the new password and given_name / family_name from
    our user record (SPEC 3 "Attributes on the new-password challenge").

    Returns tokens (or a further challenge, which the SPA reports by name, SPEC 8).
    Raises: RateLimited, MustSignInWithGoogle, MustSignInWithSso, AccessDeactivated,
    InvitationExpired, ProviderRefused (e.g. an expired challenge session), VendorUnavailable.
    """
    method = "new password"
    async with (
        _logged(flow.sign_ins, username, method),
        flow.attempts.attempt(username),
        cognito_errors(),
    ):
        await _refuse_by_policy(flow.db, username)
        names = await repository.user_names(flow.db, username)
        attributes = {}
        if names is not None:
            attributes = {"given_name": names[0], "family_name": names[1]}
        result = await flow.cognito.respond_new_password(
            username, session, new_password, attributes
        )
    return await _sign_in_response(flow, method, result, username)


async def _send_reset_code(
    db: AsyncSession, cognito: CognitoClient, username: str, email: str
) -> CognitoCodeDelivery | None:
    """ForgotPassword, also for a registrant who has not entered their email verification
    code yet. Cognito sends reset codes only to a verified address, so for one of our
    password users it first marks the address verified admin-side (README "Security model",
    email ownership): the reset code still goes to that mailbox only, so only its owner can
    use it, and our own ``email_verified`` stays false until a code Cognito emailed there is
    entered (the reset code itself, :func:`confirm_forgot_password`, or the verification
    code). Without this, whoever registered an address first would keep its owner out.

    A password user with no pool user of that name (someone who only ever signed in through a
    SAML connection that was removed since: README "SAML single sign-on") gets one first, with
    a random password and the address verified, so the code sets their first password.
    ``username``: their Cognito username (the address they were created with); ``email``:
    their address now.
    """
    if await repository.may_lack_pool_user(db, username):
        try:
            await cognito.admin_get_user(username)
        except UserNotFoundError:
            await cognito.admin_create_user(
                username, {"email": email, "email_verified": "true"}, suppress_message=True
            )
            unusable = "Reset-" + secrets.token_urlsafe(32) + "1!"
            await cognito.admin_set_user_password(username, unusable, permanent=True)
    try:
        return await cognito.forgot_password(username)
    except NoVerifiedAddressError:
        if not await repository.is_password_user(db, username):
            raise
    await cognito.admin_update_user_attributes(username, {"email_verified": "true"})
    return await cognito.forgot_password(username)


async def forgot_password(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    email: str,
) -> ForgotPasswordResponse:
    """Have Cognito email a reset code (SPEC 4 forgot-password, SPEC 8 messages).

    Returns where the code went; ``code_delivery`` is null when Cognito answered
    NotAuthorizedException, which SPEC 8 ignores silently. Raises:
        RateLimited; MustSignInWithGoogle; MustSignInWithSso; AccessDeactivated;
        ProviderRefused: 'User does not exist' (UserNotFoundException) or the provider's text;
        PasswordResetUnavailable: the answer has no delivery details;
        VendorUnavailable.
    """
    await attempts.reset_requested(email)
    found = await repository.password_username(db, email)
    await _refuse_by_policy(db, found or email, invitation=False)
    async with cognito_errors():
        try:
            username = _refuse_former_address(found)
            delivery = await _send_reset_code(db, cognito, username, email)
        except NotAuthorizedError:
            return ForgotPasswordResponse(code_delivery=None)
    if delivery is None:
        raise PasswordResetUnavailable()
    return ForgotPasswordResponse(
        code_delivery=CodeDelivery(
            destination=delivery.destination,
            delivery_medium=delivery.delivery_medium,
            attribute_name=delivery.attribute_name,
        )
    )


async def confirm_forgot_password(
    *,
    flow: PasswordSignIn,
    email: str,
    code: str,
    new_password: str,
) -> SignInResponse:
    """Set the new password with the emailed code (which also proves the email address:
    ``email_verified``), end every session the old password opened (access tokens issued
    before now, and every refresh token at Cognito), then sign in with the new one (SPEC 4:
    "After a successful reset the user is signed in automatically").

    Raises: RateLimited, MustSignInWithGoogle, MustSignInWithSso, AccessDeactivated,
    ProviderRefused (wrong or expired code, with the provider's message), VendorUnavailable.
    """
    # A refusal is a wrong or expired code (or an unknown user): a failed attempt.
    method = "password reset"
    found = await repository.password_username(flow.db, email)
    async with (
        _logged(flow.sign_ins, found or email, method),
        flow.attempts.attempt(email),
        cognito_errors(),
    ):
        username = _refuse_former_address(found)
        await _refuse_by_policy(flow.db, username, invitation=False)
        await flow.cognito.confirm_forgot_password(username, code, new_password)
        # The code Cognito emailed to the address was entered: the address is theirs.
        await repository.mark_email_verified(flow.db, User.identity_id == username)
        await end_sessions(flow.db, User.identity_id == username)
        await flow.cognito.admin_user_global_sign_out(username)
        result = await _password_auth(flow, username, new_password)
    return await _sign_in_response(flow, method, result, username)


async def answer_two_step_code(*, flow: PasswordSignIn, session: str, code: str) -> SignInResponse:
    """Answer a sign-in's SOFTWARE_TOKEN_MFA challenge with the authenticator app's code
    (AdminRespondToAuthChallenge; README "Two-step sign-in"). The user is the one whose
    password opened the challenge (``two_step.challenge_user``), whatever username the
    request spells. A wrong code counts as a failed attempt, as a wrong password does, and
    towards the lock of the user's code step, which no password lifts; a code works once
    (api/identity/mfa/guard.py).

    Raises: TwoStepSignInExpired (no challenge the API handed out, or an expired one),
    RateLimited (also: the code step is locked), TwoStepCodeUsed, MustSignInWithGoogle,
    AccessDeactivated, InvitationExpired, ProviderRefused (CodeMismatchException, an expired
    challenge session: Cognito's message), VendorUnavailable.
    """
    method = "two-step code"
    user = await two_step.challenge_user(flow.db, session)
    if user is None or user.identity_id is None:
        raise TwoStepSignInExpired()
    identity = user.identity_id
    async with (
        _logged(flow.sign_ins, identity, method),
        flow.attempts.attempt(identity),
        cognito_errors(),
    ):
        await _refuse_by_policy(flow.db, identity)
        async with two_step.code_guard(flow.attempts).attempt(user.id, code):
            result = await flow.cognito.respond_software_token_mfa(identity, session, code)
    return await _sign_in_response(flow, method, result, identity)


async def sign_in_with_recovery_code(
    *, flow: PasswordSignIn, email: str, password: str, recovery_code: str
) -> SignInResponse:
    """Sign in with the password and a recovery code in place of the authenticator app's
    code (README "Two-step sign-in"). The password is checked by Cognito first; then one of
    the user's unused codes is spent; then, as Cognito has no recovery codes, its MFA is
    lifted for this one sign-in (AdminSetUserMFAPreference off, AdminInitiateAuth, on again
    at once), so the sign-in still ends in Cognito's tokens. Meanwhile any other password
    sign-in still needs the code: the console's own record says two-step sign-in is on
    (:func:`_password_auth`). A new set-up is then due: the tokens work only for it until the
    user has a new authenticator. Audited (``sign_in.succeeded`` with the method ``recovery
    code``, and ``two_step.recovery_code_used``). A wrong code counts as a failed attempt.

    Raises: RateLimited, MustSignInWithGoogle, AccessDeactivated, InvitationExpired,
    ProviderRefused (a wrong password), RecoveryCodeMismatch, VendorUnavailable.
    """
    method = "recovery code"
    found = await repository.password_username(flow.db, email)
    async with (
        _logged(flow.sign_ins, found or email, method),
        flow.attempts.attempt(email),
        cognito_errors(),
    ):
        username = _refuse_former_address(found)
        await _refuse_by_policy(flow.db, username)
        result = await flow.cognito.password_auth(username, password)
        try:
            user = await two_step.use_recovery_code(flow.db, username, recovery_code)
        except RecoveryCodeMismatch:
            if result.tokens is not None:
                await two_step.revoke_quietly(flow.cognito, result.tokens)
            raise
        if result.tokens is None:
            await flow.cognito.admin_set_software_token_mfa(username, enabled=False)
            try:
                result = await flow.cognito.password_auth(username, password)
            finally:
                await flow.cognito.admin_set_software_token_mfa(username, enabled=True)
        else:  # MFA was off at Cognito behind the console: on again
            await flow.cognito.admin_set_software_token_mfa(username, enabled=True)
    if result.tokens is None:
        raise UnableToAuthenticate()
    claims = await verified_claims(verifier=flow.verifier, tokens=result.tokens)
    signing_in = await signed_in(db=flow.db, sign_ins=flow.sign_ins, claims=claims, method=method)
    if signing_in is not None:
        await two_step.set_up_again_since(
            flow.db, user, claims.authenticated_at, flow.sign_ins.trail(flow.db, signing_in)
        )
    return SignInResponse(
        tokens=tokens_out(result.tokens, flow.cookies), two_step_setup_required=True
    )


def _no_passkey(exc: CognitoError) -> AppError:
    """Cognito's answers that mean no passkey signs in as this user (no such user, none
    registered, passkey sign-in not set up) are one :class:`NoPasskey`; the rest as usual."""
    if isinstance(exc, (UserNotFoundError, PasskeysNotEnabledError)):
        return NoPasskey()
    return refusal(exc)


PASSKEY = "passkey"


async def passkey_options(*, flow: PasswordSignIn, email: str) -> PasskeySignInOptions:
    """Start a passkey sign-in (README "Passkeys"): Cognito's WEB_AUTHN challenge for the
    user of ``email`` (AdminInitiateAuth USER_AUTH at the passkey client). Refused as a
    password sign-in of that email would be (the account requires Google or SAML, the access
    is off, the invitation lapsed), counted as a sign-in attempt of the email.

    Raises: NoPasskey (no password user of that email, or one without a passkey: the same
    answer), RateLimited, MustSignInWithGoogle, MustSignInWithSso, AccessDeactivated,
    InvitationExpired, ProviderRefused, VendorUnavailable.
    """
    found = await repository.password_username(flow.db, email)
    async with (
        _logged(flow.sign_ins, found or email, PASSKEY),
        flow.attempts.attempt(email),
        cognito_errors(refused=_no_passkey),
    ):
        if found is None:  # a renamed user's former address
            raise NoPasskey()
        await _refuse_by_policy(flow.db, found)
        challenge = await flow.cognito.passkey_auth_start(found)
    return PasskeySignInOptions(session=challenge.session, options=challenge.options)


async def passkey_sign_in(
    *, flow: PasswordSignIn, email: str, session: str, credential: dict[str, Any]
) -> SignInResponse:
    """Answer a passkey sign-in's challenge with the browser's assertion
    (AdminRespondToAuthChallenge WEB_AUTHN: Cognito checks the signature, challenge, origin,
    relying party and sign count). It starts a session of the method ``passkey``, is recorded
    as ``sign_in.succeeded`` with the method ``passkey``, and notes the passkey's last use. A
    passkey that verifies its user is two factors in one: it satisfies the account's two-step
    requirement (``api.principal.two_step``), so no code or set-up follows. A refused
    assertion counts as a failed attempt, as a wrong password does, and so does a passkey not
    added in the console (registered at Cognito with an access token alone).

    Raises: NoPasskey, RateLimited, MustSignInWithGoogle, MustSignInWithSso,
    AccessDeactivated, InvitationExpired, ProviderRefused (NotAuthorizedException: a forged,
    replayed or deleted passkey's assertion, another sign-in's session), UnableToAuthenticate,
    VendorUnavailable.
    """
    found = await repository.password_username(flow.db, email)
    async with (
        _logged(flow.sign_ins, found or email, PASSKEY),
        flow.attempts.attempt(email),
        cognito_errors(refused=_no_passkey),
    ):
        if found is None:
            raise NoPasskey()
        await _refuse_by_policy(flow.db, found)
        if not await passkeys.added_here(flow.db, found, str(credential.get("id", ""))):
            # Registered at Cognito with an access token alone, past the console's recent
            # sign-in (api/identity/passkeys/service.py): refused as Cognito refuses a passkey
            # it does not know.
            raise NotAuthorizedError(
                "NotAuthorizedException", "This passkey was not added in the console."
            )
        result = await flow.cognito.passkey_auth_answer(found, session, credential)
    if result.tokens is None:
        raise UnableToAuthenticate()
    claims = await verified_claims(verifier=flow.verifier, tokens=result.tokens)
    await signed_in(db=flow.db, sign_ins=flow.sign_ins, claims=claims, method=PASSKEY)
    await passkeys.note_sign_in(
        flow.db, claims.sub, str(credential.get("id", "")), datetime.now(UTC)
    )
    return SignInResponse(tokens=tokens_out(result.tokens, flow.cookies))


def _id_claims(id_token: str) -> dict[str, Any]:
    # The ID token comes straight from the token endpoint over TLS, so its claims may be read
    # without checking the signature (OpenID Connect Core 3.1.3.7); the identity itself is
    # taken from the access token, which is verified.
    try:
        claims: dict[str, Any] = jwt.decode(id_token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return claims


# The session method of each identity Cognito can assert (README "Sessions").
_FEDERATED_METHODS = {
    AuthType.GOOGLE_SSO: SignInMethod.GOOGLE,
    AuthType.GITHUB: SignInMethod.GITHUB,
    AuthType.SAML_SSO: SignInMethod.SAML,
}


def _federated_method(id_claims: dict[str, Any]) -> SignInMethod:
    """How a hosted-UI sign-in signed in, from the ``identities`` claim of the ID token
    Cognito's token endpoint answered with (a list, or the attribute's JSON text as the
    stand-in writes it): Google, GitHub or SAML; a password for anything else."""
    identities = id_claims.get("identities", "")
    text = identities if isinstance(identities, str) else json.dumps(identities)
    return _FEDERATED_METHODS.get(asserted_provider(text)[0], SignInMethod.PASSWORD)


def _s256(code_verifier: str) -> str:
    """PKCE S256 code challenge (RFC 7636 4.2): BASE64URL(SHA256(verifier)), unpadded."""
    digest = hashlib.sha256(code_verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def start_oauth(
    *,
    cognito: CognitoClient,
    cookies: SessionCookies,
    redirect_uri: str,
    identity_provider: str = "",
    idp_identifier: str = "",
    flow_cookie: tuple[str, str] = (OAUTH_COOKIE, OAUTH_PATH),
) -> AuthorizeResponse:
    """Start a hosted-UI sign-in: a random ``state`` and PKCE verifier for this attempt, kept
    in the browser's ``oauth_flow`` cookie, and the authorize URL carrying the state and the
    verifier's S256 challenge (SPEC 2 /oauth/<provider>/login; RFC 6749 10.12, RFC 7636). The
    identity provider is named (``identity_provider``) or found by Cognito from an identifier
    (``idp_identifier``: the email domain of a SAML connection). ``flow_cookie``: the name
    and path of the cookie (a SAML test sign-in has its own).

    Raises: VendorUnavailable when no hosted UI is configured.
    """
    state = secrets.token_urlsafe(32)
    code_verifier = secrets.token_urlsafe(64)  # 86 characters: RFC 7636 allows 43 to 128
    try:
        url = cognito.authorize_url(
            redirect_uri,
            state,
            _s256(code_verifier),
            identity_provider=identity_provider,
            idp_identifier=idp_identifier,
        )
    except CognitoUnavailable as exc:
        raise VendorUnavailable() from exc
    cookies.start_oauth_flow(state, code_verifier, name=flow_cookie[0], path=flow_cookie[1])
    return AuthorizeResponse(authorize_url=url)


async def redeem_code(
    *,
    cognito: CognitoClient,
    verifier: AccessTokenVerifier,
    flow: tuple[str, str] | None,
    code: str,
    state: str,
    redirect_uri: str,
) -> tuple[CognitoTokens, AccessClaims]:
    """The tokens of the hosted UI's code and the verified claims of its access token, if the
    returned ``state`` is the one of ``flow``, the ``(state, code_verifier)`` this browser
    started the sign-in with (a cookie), and the code is exchanged with its verifier: a code
    only works in the browser that asked for it.

    Raises:
        ValidationCodeExpired: ``invalid_grant`` (used, expired or unknown code, or a
            verifier that does not match the code's challenge).
        UnableToAuthenticate: no flow in this browser, a state that is not this browser's,
            or any other failure, including an unverifiable token.
    """
    if flow is None or not hmac.compare_digest(flow[0].encode(), state.encode()):
        raise UnableToAuthenticate()
    try:
        tokens = await cognito.exchange_code(code, redirect_uri, flow[1])
        claims = await verifier.verify(tokens.access_token)
    except OAuthError as exc:
        if exc.error == "invalid_grant":
            raise ValidationCodeExpired() from exc
        raise UnableToAuthenticate() from exc
    except (CognitoUnavailable, InvalidToken, IdentityProviderDown) as exc:
        raise UnableToAuthenticate() from exc
    return tokens, claims


async def _first_federated_sign_in(
    *,
    db: AsyncSession,
    sign_ins: SignInLog,
    cognito: CognitoClient,
    claims: AccessClaims,
    client_address: str,
) -> None:
    """An identity with no user yet goes straight into its account when the account expects
    it: a SAML identity's user is created or linked in the connection's account (README
    "SAML single sign-on"); a person the account's directory provisioned is bound to their
    Google identity (README "Directory sync (SCIM)"). Any other identity chooses an account
    (SPEC 4). What the identity is comes from Cognito (AdminGetUser, api/principal/identity.py).
    """
    async with cognito_errors(refused=lambda _: UnableToAuthenticate()):
        identity = prove_identity(await cognito.admin_get_user(claims.username))
    if identity.auth_type is AuthType.SAML_SSO:
        try:
            user = await saml.provision(
                db=db, identity=identity, sub=claims.sub, client_address=client_address
            )
        except saml.SamlSignInRefused as exc:
            raise SsoSignInRefused(exc.message) from exc
        await sign_ins.succeeded(db, user, "SAML SSO")
    elif await land_provisioned_user(db=db, identity=identity):
        await signed_in(db=db, sign_ins=sign_ins, claims=claims, method="identity provider")


async def exchange_code(
    *,
    db: AsyncSession,
    sign_ins: SignInLog,
    cognito: CognitoClient,
    verifier: AccessTokenVerifier,
    cookies: SessionCookies,
    flow: tuple[str, str] | None,
    code: str,
    state: str,
    redirect_uri: str,
    client_address: str = "",
) -> CodeExchangeResponse:
    """Exchange the hosted UI's code for tokens (SPEC 7 "Token exchange") in the browser that
    started the sign-in (:func:`redeem_code`). The first sign-in of a SAML identity, or of a
    person the account's directory provisioned, lands in the account
    (:func:`_first_federated_sign_in`); ``client_address`` is for that (the audit log).

    Returns the tokens (the refresh token as its cookie) and the identity (Cognito username
    from the verified access token; email and names from the ID token's claims). Raises:
        ValidationCodeExpired, UnableToAuthenticate: see :func:`redeem_code`.
        SsoSignInRefused, RemovedFromAccount: a SAML identity the console does not let in.
    """
    cookies.end_oauth_flow()
    tokens, claims = await redeem_code(
        cognito=cognito,
        verifier=verifier,
        flow=flow,
        code=code,
        state=state,
        redirect_uri=redirect_uri,
    )
    id_claims = _id_claims(tokens.id_token)
    if not await signed_in(
        db=db,
        sign_ins=sign_ins,
        claims=claims,
        method="identity provider",
        session_method=_federated_method(id_claims),
    ):
        await _first_federated_sign_in(
            db=db,
            sign_ins=sign_ins,
            cognito=cognito,
            claims=claims,
            client_address=client_address,
        )
    return CodeExchangeResponse(
        tokens=tokens_out(tokens, cookies),
        identity=FederatedIdentity(
            username=claims.username,
            email=str(id_claims.get("email", "")),
            first_name=str(id_claims.get("given_name", "")),
            last_name=str(id_claims.get("family_name", "")),
        ),
    )


async def refresh(
    *,
    cognito: CognitoClient,
    verifier: AccessTokenVerifier,
    read_engine: AsyncEngine,
    cookies: SessionCookies,
    refresh_token: str | None,
) -> Tokens:
    """New access and ID tokens for the refresh token of the browser's cookie, if the
    account's sign-in policy still lets its user act (the check every request makes,
    ``api.principal.principal``). A refused refresh drops the cookie and revokes the refresh
    token: it cannot bring the session back later either.

    Raises:
        NotAuthenticated: no cookie, or the refresh token is expired or revoked.
        GoogleSignInRequired, UserRemoved, AccessDeactivated, InvitationLapsed, SessionEnded:
            the sign-in policy refuses the user.
        VendorUnavailable: Cognito is unreachable.
    """
    if not refresh_token:
        raise NotAuthenticated("Authentication required")
    async with cognito_errors(refused=lambda exc: NotAuthenticated(exc.message)):
        tokens = await cognito.refresh(refresh_token)
    try:
        claims = await verifier.verify(tokens.access_token)
        await principal.get_caller(read_engine, claims)
    except IdentityProviderDown as exc:
        raise IdentityProviderUnavailable() from exc
    except (InvalidToken, SignInPolicyRefusal) as exc:
        cookies.clear_refresh_token()
        with contextlib.suppress(CognitoError, CognitoUnavailable):
            await cognito.revoke_token(refresh_token)
        if isinstance(exc, InvalidToken):
            raise NotAuthenticated("Authentication required") from exc
        raise
    return tokens_out(tokens, cookies)


async def sign_out(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    verifier: AccessTokenVerifier,
    cookies: SessionCookies,
    access_token: str | None,
    refresh_token: str | None,
) -> None:
    """Sign this browser out: its refresh token is revoked at Cognito (RevokeToken: this
    browser only, other devices keep theirs), the cookie is cleared, and its session ends
    (README "Sessions": every token of it is refused from now on, other sessions go on). A
    sign-in the console has no session of (from before sessions were recorded) ends all the
    user's access tokens issued before now instead (``tokens_valid_after``; another device's
    next refresh gives it a new one). A browser whose tokens are already gone or invalid can
    still drop its cookie.

    A token Cognito already considers revoked counts as signed out. Raises VendorUnavailable.
    """
    cookies.clear_refresh_token()
    if access_token:
        # Signing keys out of reach: the cookie still goes and the refresh token is revoked.
        with contextlib.suppress(InvalidToken, IdentityProviderDown):
            claims = await verifier.verify(access_token)
            if not await sessions.end_current(db, claims):
                await end_sessions(db, User.identity_sub == claims.sub)
    if not refresh_token:
        return
    async with cognito_errors():
        try:
            await cognito.revoke_token(refresh_token)
        except NotAuthorizedError:
            return


async def start_sso(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    cookies: SessionCookies,
    email: str,
    redirect_uri: str,
) -> AuthorizeResponse:
    """Start a sign-in through the SAML connection of the work email's domain ('Sign in with
    SSO', README "SAML single sign-on"): the hosted UI's authorize URL with
    ``idp_identifier=<domain>`` (or ``identity_provider=<connection>`` for a verified domain
    Cognito cannot hold as an identifier: ``saml.connection_for_domain``), state and PKCE as
    for Google (:func:`start_oauth`).

    Raises:
        SsoNotConfigured: no verified domain's account has a SAML connection for the domain.
        VendorUnavailable: no hosted UI is configured.
    """
    domain = email_domain(email)
    route = await saml.connection_for_domain(db, domain) if domain else None
    if route is None:
        raise SsoNotConfigured(f"No single sign-on is set up for {domain or email}.")
    return start_oauth(
        cognito=cognito,
        cookies=cookies,
        redirect_uri=redirect_uri,
        identity_provider=route.identity_provider,
        idp_identifier=route.idp_identifier,
    )
