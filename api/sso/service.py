"""Google single sign-on setting (SPEC 4 "SSO setting", 5 "Other").

Enabling records the caller's email domain on the account: Google identities of that domain
may then join the account by signing in with Google, invites are refused, and the account's
users cannot sign in or reset a password with a password. Disabling clears the domains.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from api.auth.principal import Caller
from api.emails import email_domain, is_gmail_domain
from api.models import Account, AuthType
from api.sso.errors import GoogleSsoAuthTypeRequired, PersonalGmailAccount
from api.sso.schemas import Sso


async def set_google_sso(db: AsyncSession, caller: Caller, required: bool) -> Sso:
    """Turn "require Google SSO" on or off for the caller's account.

    Raises:
        PersonalGmailAccount: enabling from a Gmail address.
        GoogleSsoAuthTypeRequired: enabling as a user who did not sign in with Google.
    """
    account = await db.get_one(Account, caller.account_id)
    if required:
        domain = email_domain(caller.email)
        if is_gmail_domain(domain):
            raise PersonalGmailAccount()
        if caller.auth_type != AuthType.GOOGLE_SSO:
            raise GoogleSsoAuthTypeRequired()
        account.require_google_sso = True
        account.sso_domains = [domain]
    else:
        account.require_google_sso = False
        account.sso_domains = []
    await db.flush()
    return sso_of(account)


def sso_of(account: Account) -> Sso:
    """The account's SSO state as the console shows it (SPEC 3 "sso")."""
    return Sso(is_google_sso=account.require_google_sso, domains=list(account.sso_domains))
