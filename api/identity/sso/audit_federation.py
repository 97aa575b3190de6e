"""Check the users recorded as Google or GitHub sign-ins against what Cognito asserts.

Rows written while the API took the username prefix (``google_…``) as proof of federation may
record a native pool user as a Google SSO user, who could then have joined an account through
single sign-on (README "Who someone is"). This finds such rows: for every ``Google SSO`` /
``GitHub`` user it asks Cognito (AdminGetUser) and compares with
:func:`api.principal.identity.prove_identity`.

``python -m api.app.commands.audit_federation`` prints one line per user whose record Cognito does
not back (``--fix`` records them as email users, which also takes Google SSO settings out of
their hands; whether they belong in their account is for a person to decide: the line names
the account). Exits 1 when it found any, so it can run in a deploy pipeline.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from api.adapters.cognito import CognitoClient, UserNotFoundError
from api.models import Account, AuthType, User
from api.principal.identity import prove_identity


@dataclass(frozen=True, slots=True)
class Finding:
    """A user whose recorded sign-in Cognito does not back."""

    user_id: uuid.UUID
    email: str
    account_name: str
    recorded: AuthType
    asserted: AuthType | None  # None: the pool has no such user

    def __str__(self) -> str:
        asserted = self.asserted.value if self.asserted else "no pool user"
        return (
            f"{self.email} in {self.account_name!r}: recorded {self.recorded.value}, "
            f"Cognito asserts {asserted}"
        )


async def audit(db: AsyncSession, cognito: CognitoClient, fix: bool = False) -> list[Finding]:
    """Every federated user row that Cognito does not back; with ``fix``, those rows become
    email users (flushed; the caller commits)."""
    rows = await db.execute(
        select(User.id, User.identity_id, User.email, User.auth_type, Account.name)
        .join(Account, Account.id == User.account_id)
        .where(User.auth_type.in_([AuthType.GOOGLE_SSO, AuthType.GITHUB]))
        # Provisioned by a directory and not signed in yet: no pool user to back them.
        .where(User.identity_id.is_not(None))
        .order_by(Account.name, User.email)
    )
    findings = []
    for user_id, identity_id, email, recorded, account_name in rows:
        try:
            identity = prove_identity(await cognito.admin_get_user(str(identity_id)))
        except UserNotFoundError:
            asserted: AuthType | None = None
        else:
            asserted = identity.auth_type
        if asserted is not recorded:
            findings.append(Finding(user_id, email, account_name, recorded, asserted))
    if fix and findings:
        await db.execute(
            update(User)
            .where(User.id.in_([f.user_id for f in findings]))
            .values(auth_type=AuthType.EMAIL)
        )
        await db.flush()
    return findings
