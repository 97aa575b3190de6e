"""Wire shapes of the SSO setting (SPEC 3 "sso", settings field requireGoogleSSO)."""

from pydantic import Field

from api.schemas import ApiModel


class Sso(ApiModel):
    """Google single sign-on state: whether it is required, and for which email domains."""

    is_google_sso: bool = Field(alias="isGoogleSSO")
    domains: list[str]


class SsoUpdate(ApiModel):
    """``POST /web/sso`` body."""

    require_google_sso: bool = Field(alias="requireGoogleSSO", strict=True)


class SsoResponse(ApiModel):
    """The account's SSO state after the change."""

    sso: Sso
