"""Passkey rules (README "Passkeys"): a person's own passkeys, kept by Cognito
(StartWebAuthnRegistration, CompleteWebAuthnRegistration, ListWebAuthnCredentials,
DeleteWebAuthnCredential, each with the person's own access token) and named by the console,
since Cognito has no rename (the ``passkey`` table).

Cognito's list is the truth: a passkey is the caller's when ListWebAuthnCredentials with
their access token lists it, so another person's id is not found, whatever the table holds.
Adding one needs a recent sign-in, proved as two-step sign-in's changes prove it
(``api.identity.mfa.service.reauthenticate``), and is for password users only. Cognito would
also register a passkey for anyone holding the access token (its StartWebAuthnRegistration and
CompleteWebAuthnRegistration take the token alone), so the console holds each registration to
a challenge it handed out after that proof (:func:`complete_registration`), and signs in only
with passkeys added here, the ones with a row (``api.identity.sign_in.service``).
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import (
    CognitoClient,
    CognitoError,
    Passkey,
    PasskeyRefusedError,
    ResourceNotFoundError,
)
from api.audit import AuditAction, AuditTrail, Target
from api.identity.cognito_errors import cognito_errors, refusal
from api.identity.mfa.service import challenge_user, hold_challenge, reauthenticate
from api.identity.passkeys import repository
from api.identity.passkeys.errors import (
    PasskeyNameTaken,
    PasskeyNotFound,
    PasskeyRefused,
    PasskeysUnavailable,
)
from api.identity.passkeys.schemas import PasskeyView
from api.kernel.errors import AppError
from api.models import AuthType, User
from api.models import Passkey as PasskeyRow
from api.principal.principal import Caller
from api.ratelimit import PasswordAttempts


def _refused(exc: CognitoError) -> AppError:
    """A registration Cognito did not accept (its WebAuthn refusals, or a response it could
    not read: InvalidParameterException) is :class:`PasskeyRefused`; the rest as usual."""
    if isinstance(exc, PasskeyRefusedError) or exc.code == "InvalidParameterException":
        return PasskeyRefused()
    return refusal(exc)


_ATTACHMENTS = ("platform", "cross-platform")


def _view(passkey: Passkey, row: PasskeyRow | None) -> PasskeyView:
    attachment = passkey.attachment if passkey.attachment in _ATTACHMENTS else None
    return PasskeyView(
        id=passkey.id,
        name=row.name if row else passkey.name,
        created_at=passkey.created_at,
        last_used_at=row.last_used_at if row else None,
        authenticator_attachment=attachment,
    )


async def _listed(cognito: CognitoClient, access_token: str) -> list[Passkey]:
    async with cognito_errors():
        found = await cognito.list_web_authn_credentials(access_token)
    return sorted(found, key=lambda passkey: passkey.created_at)


async def _password_user(db: AsyncSession, caller: Caller) -> User:
    assert caller.user_id is not None  # Permission.SELF: never an access token
    user = await repository.user(db, caller.user_id)
    assert user is not None  # the caller's own row: the principal just read it
    if user.auth_type is not AuthType.EMAIL or user.identity_id is None:
        raise PasskeysUnavailable()
    return user


async def list_passkeys(
    *, db: AsyncSession, cognito: CognitoClient, identity_sub: str, access_token: str
) -> list[PasskeyView]:
    """The passkeys of the pool user ``identity_sub`` (whose ``access_token`` this is), oldest
    first, with the console's names and last use (Cognito's name for one added elsewhere).

    Raises: ProviderRefused, VendorUnavailable.
    """
    listed = await _listed(cognito, access_token)
    rows = await repository.rows(db, identity_sub)
    return [_view(passkey, rows.get(passkey.id)) for passkey in listed]


async def start_registration(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    attempts: PasswordAttempts,
    caller: Caller,
    access_token: str,
    password: str,
    code: str | None,
) -> dict[str, Any]:
    """The creation options of a new passkey (StartWebAuthnRegistration), after the caller
    proves a recent sign-in: the password, and the code when two-step sign-in is on.

    Raises: PasskeysUnavailable (not a password user), TwoStepCodeRequired, RateLimited,
    TwoStepCodeUsed, ProviderRefused (a wrong password or code), VendorUnavailable.
    """
    user = await _password_user(db, caller)
    await reauthenticate(
        cognito=cognito, attempts=attempts, user=user, password=password, code=code
    )
    async with cognito_errors(refused=_refused):
        options = await cognito.start_web_authn_registration(access_token)
    assert user.identity_id is not None  # a password user's (_password_user)
    await hold_challenge(db, user.identity_id, _REGISTRATION + str(options.get("challenge")))
    return options


# How a registration's challenge is held (the two-step challenges' record, by its digest),
# apart from any sign-in session.
_REGISTRATION = "passkey-registration:"


def _challenge_of(credential: dict[str, Any]) -> str:
    """The challenge the browser signed in a RegistrationResponseJSON (its clientDataJSON's,
    base64url). Raises PasskeyRefused for one that has none."""
    try:
        encoded = str(credential["response"]["clientDataJSON"])
        client_data = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
        return str(client_data["challenge"])
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise PasskeyRefused() from exc


def _name_free(listed: list[Passkey], rows: dict[str, PasskeyRow], name: str, own: str) -> None:
    for passkey in listed:
        row = rows.get(passkey.id)
        if passkey.id != own and (row.name if row else passkey.name) == name:
            raise PasskeyNameTaken()


async def complete_registration(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    audit: AuditTrail,
    caller: Caller,
    identity_sub: str,
    access_token: str,
    credential: dict[str, Any],
    name: str,
) -> PasskeyView:
    """Register the browser's new passkey under ``name``: its challenge must be one
    :func:`start_registration` handed this user after their recent sign-in (not one they
    asked Cognito for with the access token alone), and CompleteWebAuthnRegistration checks
    the rest. Audited (``passkey.added``).

    Raises: PasskeysUnavailable, PasskeyNameTaken, PasskeyRefused, ProviderRefused,
    VendorUnavailable.
    """
    user = await _password_user(db, caller)
    holder = await challenge_user(db, _REGISTRATION + _challenge_of(credential))
    if holder is None or holder.id != user.id:
        raise PasskeyRefused()
    listed = await _listed(cognito, access_token)
    rows = await repository.rows(db, identity_sub)
    await repository.forget_others(db, identity_sub, [passkey.id for passkey in listed])
    _name_free(listed, rows, name, own="")
    async with cognito_errors(refused=_refused):
        await cognito.complete_web_authn_registration(access_token, credential)
    new = next(
        (p for p in await _listed(cognito, access_token) if p.id == credential.get("id")), None
    )
    if new is None:
        raise PasskeyRefused()
    row = await repository.put(db, identity_sub, new.id, name, new.created_at)
    await audit.record(AuditAction.PASSKEY_ADDED, _target(user, row))
    return _view(new, row)


def _target(user: User, row: PasskeyRow | None, name: str = "") -> Target:
    label = row.name if row else name
    return Target("passkey", row.id if row else None, f"{label} ({user.email})")


async def _own(cognito: CognitoClient, access_token: str, credential_id: str) -> Passkey:
    for passkey in await _listed(cognito, access_token):
        if passkey.id == credential_id:
            return passkey
    raise PasskeyNotFound()


async def rename(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    identity_sub: str,
    access_token: str,
    credential_id: str,
    name: str,
) -> PasskeyView:
    """Name one of the caller's passkeys ``name`` (the console's name; Cognito keeps its
    own). Only a passkey added in the console: one registered at Cognito some other way is
    listed (to be removed) but never becomes the console's.

    Raises: PasskeyNotFound (not one of the caller's added here), PasskeyNameTaken,
    ProviderRefused, VendorUnavailable.
    """
    listed = await _listed(cognito, access_token)
    passkey = next((p for p in listed if p.id == credential_id), None)
    rows = await repository.rows(db, identity_sub)
    if passkey is None or credential_id not in rows:
        raise PasskeyNotFound()
    await repository.forget_others(db, identity_sub, [p.id for p in listed])
    _name_free(listed, rows, name, own=credential_id)
    row = await repository.put(db, identity_sub, credential_id, name, passkey.created_at)
    return _view(passkey, row)


async def remove(
    *,
    db: AsyncSession,
    cognito: CognitoClient,
    audit: AuditTrail,
    caller: Caller,
    identity_sub: str,
    access_token: str,
    credential_id: str,
) -> None:
    """Remove one of the caller's passkeys (DeleteWebAuthnCredential): it no longer signs
    in. Audited (``passkey.removed``).

    Raises: PasskeyNotFound, ProviderRefused, VendorUnavailable.
    """
    passkey = await _own(cognito, access_token, credential_id)
    async with cognito_errors():
        try:
            await cognito.delete_web_authn_credential(access_token, credential_id)
        except ResourceNotFoundError as exc:
            raise PasskeyNotFound() from exc
    row = await repository.remove(db, identity_sub, credential_id)
    assert caller.user_id is not None
    user = await repository.user(db, caller.user_id)
    assert user is not None
    await audit.record(AuditAction.PASSKEY_REMOVED, _target(user, row, passkey.name))


async def added_here(db: AsyncSession, username: str, credential_id: str) -> bool:
    """Whether the user of the Cognito username ``username`` added the passkey
    ``credential_id`` in the console (it has a row)."""
    return await repository.added_here(db, username, credential_id)


async def note_sign_in(
    db: AsyncSession, identity_sub: str, credential_id: str, at: datetime
) -> None:
    """A passkey sign-in of the pool user ``identity_sub`` with this credential at ``at``:
    its last use."""
    await repository.mark_used(db, identity_sub, credential_id, at)
