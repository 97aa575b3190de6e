"""Wire shapes of passkeys (README "Passkeys")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from api.identity.mfa.schemas import AuthenticatorCode
from api.kernel.schemas import ApiModel, Required, Text
from api.models.passkey import NAME_MAX_LENGTH

NAME_REQUIRED = "Give the passkey a name"


def _stripped(value: str) -> str:
    return value.strip()


PasskeyName = Annotated[
    str, Text(NAME_MAX_LENGTH), AfterValidator(_stripped), Required(NAME_REQUIRED)
]
"""A passkey's name: 1 to 60 characters once trimmed, unique among the user's passkeys."""


class PasskeyView(ApiModel):
    """A passkey as the console lists it."""

    id: str = Field(description="The credential id (base64url), as the browser knows it.")
    name: str
    created_at: datetime
    last_used_at: datetime | None = Field(description="Its latest sign-in; null: never.")
    authenticator_attachment: Literal["platform", "cross-platform"] | None = Field(
        description="``platform``: built into the device (Touch ID, Windows Hello, a phone's "
        "screen lock); ``cross-platform``: a security key or another device; null: unknown."
    )


class PasskeysResponse(ApiModel):
    """The signed-in user's passkeys, oldest first."""

    passkeys: list[PasskeyView]


class PasskeyResponse(ApiModel):
    """One passkey."""

    passkey: PasskeyView


class PasskeyRegistrationStart(ApiModel):
    """A recent sign-in, to add a passkey: the password, and the authenticator app's code
    when two-step sign-in is on."""

    password: Annotated[str, Text(256), Required("Password is required")]
    code: AuthenticatorCode | None = None


class PasskeyCreationOptions(ApiModel):
    """What ``navigator.credentials.create`` needs."""

    options: dict[str, Any] = Field(
        description="The PublicKeyCredentialCreationOptions as JSON, for "
        "``PublicKeyCredential.parseCreationOptionsFromJSON`` (``rp``, ``user``, "
        "``challenge``, ``pubKeyCredParams``, ``excludeCredentials``, "
        "``authenticatorSelection``, ``timeout``)."
    )


class NewPasskey(ApiModel):
    """The browser's new passkey and the name to show it by."""

    credential: dict[str, Any] = Field(
        description="The RegistrationResponseJSON: ``PublicKeyCredential.toJSON()`` of "
        "``navigator.credentials.create``."
    )
    name: PasskeyName


class PasskeyRename(ApiModel):
    """A passkey's new name."""

    name: PasskeyName
