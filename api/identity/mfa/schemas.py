"""Wire shapes of two-step sign-in (README "Two-step sign-in")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field

from api.kernel.schemas import ApiModel, FieldRule, Required, Text

CODE_REQUIRED = "Enter the 6-digit code from your authenticator app"


def _digits(value: str) -> str:
    return "".join(value.split())


@dataclass(frozen=True, slots=True)
class SixDigits(FieldRule):
    """An authenticator-app code: six digits once white space is dropped, else refused with
    :data:`CODE_REQUIRED`. Cognito's SoftwareTokenMFAUserCodeType is exactly six of [0-9]
    (VerifySoftwareToken refuses anything else with its own validation message)."""

    schema: ClassVar[dict[str, Any]] = {"minLength": 6, "pattern": r"^ *(?:[0-9] *){6}$(?!\n)"}

    def check(self, value: str) -> str:
        """``value``, or ``ValueError(CODE_REQUIRED)``."""
        if len(value) != 6 or not value.isascii() or not value.isdigit():
            raise ValueError(CODE_REQUIRED)
        return value


# The authenticator app's code; spaces typed between the digits are dropped.
AuthenticatorCode = Annotated[str, Text(16), AfterValidator(_digits), SixDigits()]


class TwoStepSignIn(ApiModel):
    """The caller's two-step sign-in."""

    available: bool = Field(
        description="Whether it applies to the caller: it is for password users; Google, "
        "GitHub and SAML sign-ins rely on their identity provider's own second factor."
    )
    enabled: bool = Field(description="Whether it is on.")
    enabled_at: datetime | None = Field(description="Since when it is on.")
    required_by_account: bool = Field(
        description="Whether the caller's account requires it of its password users."
    )
    setup_due: bool = Field(
        description="Whether the caller must set it up (again) before using the console: "
        "their account requires it, an Owner or Admin reset it, or they signed in with a "
        "recovery code."
    )
    recovery_codes_left: int = Field(description="Unused recovery codes.")


class TwoStepSignInResponse(ApiModel):
    """``GET /web/two-step-sign-in`` body."""

    two_step_sign_in: TwoStepSignIn


class TwoStepSetup(ApiModel):
    """A new authenticator-app secret (base32, RFC 4648) from Cognito's
    AssociateSoftwareToken: put it in the app (as text or as the QR code of its ``otpauth://``
    URI), then confirm with a code it shows. Until then the current one stays."""

    secret_code: str


class TwoStepSetupConfirm(ApiModel):
    """A code the authenticator app shows for the new secret."""

    code: AuthenticatorCode


class RecoveryCodesResponse(ApiModel):
    """Ten one-time recovery codes, shown this once (only their hashes are kept); each signs
    in once in place of an authenticator-app code. Any earlier set stops working."""

    recovery_codes: list[str]


class TwoStepReauthentication(ApiModel):
    """Both factors again, for turning two-step sign-in off or regenerating recovery codes."""

    password: Annotated[str, Text(256), Required("Password is required")]
    code: AuthenticatorCode


class TwoStepRequirement(ApiModel):
    """Whether the account requires two-step sign-in of its password users."""

    required: bool = Field(strict=True)


class TwoStepRequirementResponse(ApiModel):
    """The account's requirement after the change."""

    requirement: TwoStepRequirement
