"""Wire shapes of the SSO setting (SPEC 3 "sso", settings field requireGoogleSSO)."""

from pydantic import Field

from api.account.schemas import Sso
from api.schemas import ApiModel


class SsoSettings(ApiModel):
    """``POST /web/sso`` body."""

    require_google_sso: bool = Field(alias="requireGoogleSSO")


class SsoResponse(ApiModel):
    """The account's SSO state after the change."""

    sso: Sso
