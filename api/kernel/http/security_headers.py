"""Security headers on every response (README "Headers"), from one pure ASGI middleware.

Every response gets ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
strict-origin-when-cross-origin``, ``X-Frame-Options: DENY`` and, when ``PUBLIC_URL`` is https,
``Strict-Transport-Security: max-age=63072000; includeSubDomains``; and one
``Content-Security-Policy``:

- HTML documents (the SPA's ``index.html`` and its client-route fallbacks): :func:`spa_policy`,
  no inline script, scripts only from this origin and Stripe.js;
- the development stand-ins (``/oauth2/*``, ``/saml2/*``, ``/dev/*``, mounted only with
  ``DEV_STAND_INS``): :data:`STAND_IN_POLICY`, no script at all, the sign-in page's inline
  ``<style>`` allowed (the SAML stand-in's auto-post page sets its own, allowing its one
  script by hash);
- everything else (JSON): :data:`API_POLICY`, ``default-src 'none'; frame-ancestors 'none'``.

``/web/*`` responses carry tokens or the API key, so they get ``Cache-Control: no-store``,
except ``GET /web/config`` (public, fixed per deploy); so do the stand-ins' (temporary passwords,
tokens). A ``Cache-Control`` or ``Content-Security-Policy`` a handler set itself is kept (hashed
SPA assets are ``public, max-age=31536000, immutable``).

Every header is built once, as bytes, when the app is created, and so is each combination a
response can get: per response the middleware scans the response's few headers once and
appends one prebuilt tuple (``GET /web/session`` is the hottest path). README "Security
model" lists the values; a CDN serving the SPA must send the same policy (:func:`spa_policy`
with the API's origin added to ``connect-src``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.kernel.config import Settings

API_POLICY = "default-src 'none'; frame-ancestors 'none'"

# The hosted-UI stand-in's page has an inline <style> and a form that posts to itself, which
# redirects to the SPA's /oauth/sso: on this origin, or another loopback port when the SPA runs
# from Vite's dev server (Chromium applies form-action to the redirect too).
STAND_IN_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
    "form-action 'self' http://127.0.0.1:* http://localhost:*; base-uri 'none'; "
    "frame-ancestors 'none'"
)
STAND_IN_PREFIXES = ("/oauth2/", "/saml2/", "/dev/")
HSTS = "max-age=63072000; includeSubDomains"
REAL_STRIPE_JS_HOST = "js.stripe.com"

Header = tuple[bytes, bytes]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _policy(directives: Iterable[tuple[str, Iterable[str]]]) -> str:
    return "; ".join(
        " ".join([name, *dict.fromkeys(source for source in sources if source)])
        for name, sources in directives
    )


def spa_policy(settings: Settings) -> str:
    """The Content-Security-Policy of the SPA's HTML document.

    Args:
        settings: ``stripe_js_url`` (script and frame source; real Stripe.js also frames
            ``https://hooks.stripe.com`` for 3-D Secure, localstripe's fake one instead calls
            back to its own origin), ``stripe_api_base`` (Stripe.js calls it),
            ``cognito_hosted_ui_url`` (form-action). The API serves the document, so the
            API is ``'self'``; a CDN adds the API's origin to ``connect-src`` (README).

    Returns:
        e.g. ``default-src 'self'; script-src 'self' https://js.stripe.com; frame-src 'self'
        https://js.stripe.com https://hooks.stripe.com; connect-src 'self'
        https://api.stripe.com; img-src 'self' data:; style-src 'self'; object-src 'none';
        base-uri 'none'; form-action 'self' https://auth.example.com; frame-ancestors 'none'``.
    """
    stripe_js = _origin(settings.stripe.js_url)
    real_stripe = urlsplit(settings.stripe.js_url).hostname == REAL_STRIPE_JS_HOST
    hosted_ui = _origin(settings.cognito.hosted_ui_url) if settings.cognito.hosted_ui_url else ""
    return _policy(
        [
            ("default-src", ["'self'"]),
            ("script-src", ["'self'", stripe_js]),
            ("frame-src", ["'self'", stripe_js, "https://hooks.stripe.com" if real_stripe else ""]),
            (
                "connect-src",
                [
                    "'self'",
                    _origin(settings.stripe.api_base),
                    "" if real_stripe else stripe_js,
                ],
            ),
            ("img-src", ["'self'", "data:"]),
            # React applies `style` props through the CSSOM (element.style), which style-src
            # does not govern, so no 'unsafe-inline' is needed (checked in Chromium by the e2e
            # tests, which fail on any CSP violation).
            ("style-src", ["'self'"]),
            ("object-src", ["'none'"]),
            ("base-uri", ["'none'"]),
            ("form-action", ["'self'", hosted_ui]),
            ("frame-ancestors", ["'none'"]),
        ]
    )


@dataclass(frozen=True, slots=True)
class SecurityHeaders:
    """The header values of :class:`SecurityHeadersMiddleware`, prebuilt as ASGI byte pairs.

    ``common`` goes on every response; exactly one of the ``*_csp`` pairs is added (unless the
    response has its own policy); ``no_store`` where caching must not happen.
    ``unprotected_paths``: exact paths that get no CSP (FastAPI's Swagger UI in development,
    which loads a CDN script and runs an inline one). ``added``: every combination of those
    as the tuple a response gets (see :meth:`to_add`), built once with the rest.
    """

    common: tuple[Header, ...]
    api_csp: Header
    spa_csp: Header
    stand_in_csp: Header | None
    no_store: Header
    unprotected_paths: frozenset[str]
    added: dict[tuple[Header | None, bool], tuple[Header, ...]] = field(
        default_factory=dict, compare=False
    )

    def __post_init__(self) -> None:
        for csp in (self.api_csp, self.spa_csp, self.stand_in_csp, None):
            for no_store in (False, True):
                self.added[csp, no_store] = (
                    *self.common,
                    *((csp,) if csp is not None else ()),
                    *((self.no_store,) if no_store else ()),
                )

    def to_add(self, csp: Header | None, no_store: bool) -> tuple[Header, ...]:
        """The headers a response gets: ``common``, then ``csp`` unless None, then
        ``no_store`` when asked; prebuilt."""
        return self.added[csp, no_store]

    @classmethod
    def from_settings(
        cls, settings: Settings, unprotected_paths: Iterable[str] = ()
    ) -> SecurityHeaders:
        """Build the headers for ``settings`` (``public_url``: HSTS only when https;
        ``dev_stand_ins``: the stand-in policy on ``/oauth2/*`` and ``/dev/*``)."""
        common = [
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"strict-origin-when-cross-origin"),
            (b"x-frame-options", b"DENY"),
        ]
        if urlsplit(settings.public_url).scheme == "https":
            common.append((b"strict-transport-security", HSTS.encode()))
        csp = b"content-security-policy"
        return cls(
            common=tuple(common),
            api_csp=(csp, API_POLICY.encode()),
            spa_csp=(csp, spa_policy(settings).encode()),
            stand_in_csp=(csp, STAND_IN_POLICY.encode()) if settings.dev_stand_ins else None,
            no_store=(b"cache-control", b"no-store"),
            unprotected_paths=frozenset(unprotected_paths),
        )


class SecurityHeadersMiddleware:
    """Pure ASGI middleware adding :class:`SecurityHeaders` to every HTTP response.

    The policy is chosen by path for the stand-ins, else by the response's ``Content-Type``
    (``text/html`` gets the SPA's). Install it outermost (outside Starlette's
    ServerErrorMiddleware) so an unexpected 500 carries the headers too.
    """

    def __init__(self, app: ASGIApp, headers: SecurityHeaders) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = self.headers
        path: str = scope["path"]
        csp: Header | None = None  # None: by content type
        if path.startswith("/web/"):
            no_store = path != "/web/config" or scope["method"] not in ("GET", "HEAD")
        elif path.startswith("/scim/"):
            no_store = True  # the people of an account (README "Directory sync (SCIM)")
        elif headers.stand_in_csp is not None and path.startswith(STAND_IN_PREFIXES):
            no_store, csp = True, headers.stand_in_csp
        else:
            no_store = False

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                chosen = csp
                has_cache_control = has_csp = False
                raw = message.get("headers") or []
                for name, value in raw:
                    if name == b"content-type":
                        if chosen is None and value.startswith(b"text/html"):
                            chosen = headers.spa_csp
                    elif name == b"cache-control":
                        has_cache_control = True
                    elif name == b"content-security-policy":
                        has_csp = True
                if has_csp or path in headers.unprotected_paths:
                    chosen = None
                else:
                    chosen = chosen or headers.api_csp
                added = headers.to_add(chosen, no_store and not has_cache_control)
                message["headers"] = [*raw, *added]
            await send(message)

        await self.app(scope, receive, send_with_headers)
