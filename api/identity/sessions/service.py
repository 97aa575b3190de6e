"""The rules of sign-in sessions (README "Sessions").

Every sign-in (a password, a recovery code, Google, GitHub, SAML) starts a session, keyed by
the ``origin_jti`` Cognito stamps on each token of the sign-in and of its refreshes; the
request's check (``api.principal.principal``) refuses the tokens of an ended session and notes
its activity at most once a minute. A person sees their live sessions and ends one or all the
others; changes that end every session of a user (a password reset, a role change, turning
access off, SSO requirements) end theirs through ``api.principal.sessions.end_sessions``.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from functools import lru_cache

from sqlalchemy.ext.asyncio import AsyncSession
from ua_parser import parse

from api.identity.sessions import repository
from api.identity.sessions.errors import SessionNotFound
from api.identity.sessions.schemas import SessionsResponse, SessionView
from api.models import EndReason, SignInMethod
from api.principal.tokens import AccessClaims

KEPT_AFTER_LAST_ACTIVITY = timedelta(days=90)
"""How long a session's row stays after its last activity, ended or not."""

_USER_AGENT_MAX = 512
# ua-parser's names where people know another (Apple renamed Mac OS X).
_OS_NAMES = {"Mac OS X": "macOS"}
# Operating systems whose major version people tell apart.
_OS_WITH_VERSION = frozenset({"Windows", "iOS", "Android"})


@lru_cache(maxsize=1024)
def describe(user_agent: str) -> tuple[str | None, str | None]:
    """The browser (with its major version) and operating system of a User-Agent header, as
    the Sessions page names them (``("Chrome 120", "macOS")``), each None when ua-parser does
    not know it."""
    parsed = parse(user_agent)
    browser = os_name = None
    if parsed.user_agent is not None and parsed.user_agent.family != "Other":
        browser = " ".join(filter(None, (parsed.user_agent.family, parsed.user_agent.major)))
    if parsed.os is not None and parsed.os.family != "Other":
        family = parsed.os.family
        os_name = _OS_NAMES.get(family, family)
        if family in _OS_WITH_VERSION and parsed.os.major:
            os_name = f"{os_name} {parsed.os.major}"
    return browser, os_name


async def start(
    db: AsyncSession,
    *,
    claims: AccessClaims,
    method: SignInMethod,
    user_agent: str,
    client_address: str,
) -> None:
    """Record the session a sign-in started (its tokens' ``origin_jti``), in the sign-in's
    transaction. A token without ``origin_jti`` (a pool without token revocation) starts none:
    its user's sessions then end only all together (``tokens_valid_after``)."""
    if not claims.origin_jti:
        return
    user_agent = user_agent[:_USER_AGENT_MAX]
    browser, os_name = describe(user_agent)
    await repository.insert_session(
        db,
        {
            "identity_sub": claims.sub,
            "origin_jti": claims.origin_jti,
            "method": method.value,
            "user_agent": user_agent,
            "browser": browser,
            "os": os_name,
            "client_address": client_address,
        },
    )


async def list_sessions(db: AsyncSession, claims: AccessClaims) -> SessionsResponse:
    """The live sessions of the token's user, the latest active first, the token's own marked
    ``current``."""
    found = await repository.live_sessions(db, claims.sub)
    return SessionsResponse(
        sessions=[
            SessionView(
                id=row.id,
                method=SignInMethod(row.method),
                browser=row.browser,
                os=row.os,
                client_address=row.client_address,
                started_at=row.started_at,
                last_active_at=row.last_active_at,
                current=row.origin_jti == claims.origin_jti,
            )
            for row in found
        ]
    )


async def end_one(db: AsyncSession, claims: AccessClaims, session_id: uuid.UUID) -> None:
    """End one live session of the token's user: its next request is refused (401
    ``SessionEnded``), refresh included.

    Raises: SessionNotFound: no live session of theirs has this id."""
    if not await repository.end(db, claims.sub, EndReason.ENDED_BY_USER, session_id=session_id):
        raise SessionNotFound()


async def end_others(db: AsyncSession, claims: AccessClaims) -> int:
    """End every live session of the token's user but the token's own; returns how many."""
    return await repository.end(
        db, claims.sub, EndReason.ENDED_BY_USER, keep_origin_jti=claims.origin_jti
    )


async def end_current(db: AsyncSession, claims: AccessClaims) -> bool:
    """End the token's own session (signing out); False when the console has no record of
    it (a sign-in from before sessions were recorded)."""
    if not claims.origin_jti:
        return False
    ended = await repository.end(db, claims.sub, EndReason.SIGNED_OUT, origin_jti=claims.origin_jti)
    return ended > 0


async def prune(db: AsyncSession, now: datetime) -> int:
    """Delete the sessions inactive for ``KEPT_AFTER_LAST_ACTIVITY``; returns how many."""
    return await repository.delete_inactive_before(db, now - KEPT_AFTER_LAST_ACTIVITY)
