"""The rules of sign-in sessions (README "Sessions").

Every sign-in (a password, a recovery code, Google, GitHub, SAML) starts a session, keyed by
the ``origin_jti`` Cognito stamps on each token of the sign-in and of its refreshes; the
request's check (``api.principal.principal``) refuses the tokens of an ended session and notes
its activity at most once a minute. A sign-in from a browser and address not seen for 90 days
is emailed about (the job engine). A person sees their live sessions and ends one or all the
others; changes that end every session of a user (a password reset, a role change, turning
access off, SSO requirements) end theirs through ``api.principal.sessions.end_sessions``.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from sqlalchemy.ext.asyncio import AsyncSession
from ua_parser import parse

from api.identity.sessions import repository
from api.identity.sessions.errors import SessionNotFound
from api.identity.sessions.schemas import SessionsResponse, SessionView
from api.kernel.deferred import Email, defer_emails, recipient_tag
from api.models import EndReason, SignInMethod
from api.principal.tokens import AccessClaims

KEPT_AFTER_LAST_ACTIVITY = timedelta(days=90)
"""How long a session's row stays after its last activity, ended or not."""

NEW_SIGN_IN_AFTER = timedelta(days=90)
"""A sign-in from a browser and address unused this long (or never) is emailed about."""

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
    console_url: str,
) -> None:
    """Record the session a sign-in started (its tokens' ``origin_jti``), in the sign-in's
    transaction, and tell the user by email when it comes from a browser and address not seen
    in the last 90 days (:func:`_tell_of_new_sign_in`). A token without ``origin_jti`` (a pool
    without token revocation) starts none: its user's sessions then end only all together
    (``tokens_valid_after``)."""
    if not claims.origin_jti:
        return
    user_agent = user_agent[:_USER_AGENT_MAX]
    browser, os_name = describe(user_agent)
    count, seen = await repository.earlier_sign_ins(
        db,
        identity_sub=claims.sub,
        origin_jti=claims.origin_jti,
        browser=browser,
        os=os_name,
        client_address=client_address,
        since=datetime.now(UTC) - NEW_SIGN_IN_AFTER,
    )
    # The first sign-in of all is no news; a sign-in from where they were lately is none.
    if count and not seen:
        await _tell_of_new_sign_in(
            db, claims, browser, os_name, client_address, console_url.rstrip("/")
        )
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


def _where(browser: str | None, os_name: str | None) -> str:
    """'Chrome on macOS' (the browser without its version), as the new-sign-in email says."""
    name = browser.rsplit(" ", 1)[0] if browser and browser[-1].isdigit() else browser
    if name and os_name:
        return f"{name} on {os_name}"
    return name or os_name or "An unknown browser"


async def _tell_of_new_sign_in(
    db: AsyncSession,
    claims: AccessClaims,
    browser: str | None,
    os_name: str | None,
    client_address: str,
    console_url: str,
) -> None:
    """Email the user of ``claims`` about a sign-in from somewhere new, through the job engine
    in the sign-in's transaction (nothing when the identity has no user yet)."""
    email = await repository.email_of(db, claims.sub)
    if email is None:
        return
    where = f"{_where(browser, os_name)} from {client_address}"
    text = (
        f"New sign-in to Autostep: {where}.\n\n"
        f"Not you? Sign that session out and change your password: {console_url}/sessions\n\n"
        "You get this email when you sign in from a browser and address you have not used "
        "in the last 90 days.\n"
    )
    await defer_emails(
        db,
        [
            Email(
                to=email,
                subject=f"New sign-in to Autostep: {where}",
                text=text,
                message_key=f"new-sign-in.{claims.origin_jti}.{recipient_tag(email)}",
            )
        ],
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
