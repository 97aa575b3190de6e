"""Request body limits (README "Configuration (production)", request bodies): a body larger than its
route accepts is answered 413 ``PayloadTooLarge`` in the usual envelope before it is read in full.

A declared ``Content-Length`` over the limit is refused before the app runs; a streamed body
is counted as it arrives and refused the moment it passes the limit (the app then sees the
client as gone, and whatever it would answer is dropped).

Starlette's own limiter (FastAPI's ``max_body_size``) is not used: for a declared
``Content-Length`` it replaces any response with its own plain-text 413, which cannot carry
the envelope every error of this API has.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.kernel.errors import PayloadTooLarge, error_response


class BodyLimitMiddleware:
    """Pure ASGI middleware limiting request bodies by path prefix.

    Args:
        app: the wrapped app.
        default_bytes: the limit of every path no prefix names.
        by_prefix: ``(path prefix, limit in bytes)`` pairs; the first matching prefix wins.
    """

    def __init__(
        self, app: ASGIApp, *, default_bytes: int, by_prefix: Sequence[tuple[str, int]] = ()
    ) -> None:
        self.app = app
        self.default_bytes = default_bytes
        self.by_prefix = tuple(by_prefix)

    def _limit(self, path: str) -> int:
        for prefix, limit in self.by_prefix:
            if path.startswith(prefix):
                return limit
        return self.default_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is None and scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)  # the hot read paths carry no body
            return
        limit = self._limit(scope["path"])
        if declared is not None and declared > limit:
            await _refuse(scope, receive, send)
            return
        received = 0
        refused = False

        async def limited_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _refuse(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not refused:
                raise


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(scope: Scope, receive: Receive, send: Send) -> None:
    await error_response(PayloadTooLarge, {"connection": "close"})(scope, receive, send)
