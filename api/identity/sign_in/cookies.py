"""The httpOnly cookies of a browser's sign-in (README "Where tokens live", ARCHITECTURE
"Identity").

- ``refresh_token``: the Cognito refresh token. Script never sees it: httpOnly, SameSite=Strict,
  sent only to the session routes (Path ``/web/session``: refresh uses it, sign-out revokes
  it at Cognito), Secure whenever ``PUBLIC_URL`` is https, kept for the refresh token's
  validity. Access and ID tokens are returned in bodies and live
  in the SPA's memory.
- ``oauth_flow``: the ``state`` and PKCE ``code_verifier`` of one hosted-UI sign-in (RFC 6749
  10.12, RFC 7636), sent only to the code exchange (``POST /web/session/token``) and dropped
  there, at most 10 minutes old. It binds the returning code to the browser that started the
  sign-in: a code and state pasted into another browser (login CSRF) or a stolen code without
  the verifier (code injection) exchange for nothing.

The SPA may run on another origin (CORS with credentials); it must then share the API's site
(e.g. console.example.com and api.example.com), since SameSite=Strict cookies are not sent
across sites.
"""

from __future__ import annotations

from typing import Literal

from fastapi import Response

from api.kernel.config import Settings

REFRESH_COOKIE = "refresh_token"
REFRESH_PATH = "/web/session"
# Where the cookie lived before sign-out had to read it; cleared too, so no browser keeps one.
_OLD_REFRESH_PATH = "/web/session/refresh"
OAUTH_COOKIE = "oauth_flow"
OAUTH_PATH = "/web/session/token"
OAUTH_FLOW_TTL_S = 600
# A test sign-in through the account's SAML connection (README "SAML single sign-on"): the same
# state and verifier, for its own exchange, which never signs this browser in.
SAML_TEST_COOKIE = "saml_test_flow"
SAML_TEST_PATH = "/web/sso/saml/test"


class SessionCookies:
    """Sets and clears the sign-in cookies on one response (a FastAPI dependency: headers set
    on the injected ``Response`` are merged into the route's response)."""

    def __init__(self, settings: Settings, response: Response) -> None:
        self._response = response
        self._secure = settings.public_url.startswith("https://")
        self._refresh_max_age = settings.cognito.refresh_token_validity_s

    def _set(
        self,
        name: str,
        value: str,
        *,
        path: str,
        max_age: int,
        same_site: Literal["strict", "lax"],
    ) -> None:
        self._response.set_cookie(
            name,
            value,
            max_age=max_age,
            path=path,
            secure=self._secure,
            httponly=True,
            samesite=same_site,
        )

    def keep_refresh_token(self, refresh_token: str | None) -> None:
        """Store a newly issued refresh token; None (a refresh that did not rotate it) keeps
        the cookie as it is."""
        if refresh_token:
            self._set(
                REFRESH_COOKIE,
                refresh_token,
                path=REFRESH_PATH,
                max_age=self._refresh_max_age,
                same_site="strict",
            )

    def clear_refresh_token(self) -> None:
        """Drop the refresh token (sign-out, or a refresh the sign-in policy refused)."""
        for path in (REFRESH_PATH, _OLD_REFRESH_PATH):
            self._set(REFRESH_COOKIE, "", path=path, max_age=0, same_site="strict")

    def start_oauth_flow(
        self, state: str, code_verifier: str, *, name: str = OAUTH_COOKIE, path: str = OAUTH_PATH
    ) -> None:
        """Remember one hosted-UI sign-in's state and verifier (``<state>.<verifier>``, both
        base64url) in the cookie ``name`` sent to ``path`` (the sign-in's, or a SAML test's).
        SameSite=Lax: the exchange runs in the page the identity provider's redirect opened,
        and Lax keeps it working however a browser classifies that page."""
        self._set(
            name,
            f"{state}.{code_verifier}",
            path=path,
            max_age=OAUTH_FLOW_TTL_S,
            same_site="lax",
        )

    def end_oauth_flow(self, *, name: str = OAUTH_COOKIE, path: str = OAUTH_PATH) -> None:
        """Drop the flow cookie: a state and verifier are good for one exchange."""
        self._set(name, "", path=path, max_age=0, same_site="lax")


def parse_oauth_flow(cookie: str | None) -> tuple[str, str] | None:
    """``(state, code_verifier)`` from the flow cookie, or None when absent or malformed."""
    state, _, verifier = (cookie or "").partition(".")
    return (state, verifier) if state and verifier else None
