"""Run localstripe bound to 127.0.0.1 with its store in a file of ours.

``python -m devstack.localstripe_server --port 8420 --store .devdata/localstripe.pickle``.
The stock ``localstripe`` command listens on every interface and pickles to /tmp; here its
aiohttp app runs through ``web.run_app(host="127.0.0.1")`` (ARCHITECTURE verified recipe).

localstripe ignores ``Idempotency-Key``; Stripe replays the first response to a POST with the
same key (https://docs.stripe.com/api/idempotent_requests). A small aiohttp middleware does
that here, so the API's retries after a timeout behave in development and tests as they do
against Stripe.

What localstripe lacks of the billing rules (README "Billing") is added by ``stripe_shim``.
"""

import argparse
import pickle
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from localstripe import resources, server

from devstack import stripe_shim

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_replies: dict[tuple[str, str], tuple[int, bytes, str]] = {}


@web.middleware
async def idempotency(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Replay the first non-5xx response to a POST with the same key and API key."""
    key = request.headers.get("Idempotency-Key")
    if request.method != "POST" or not key:
        return await handler(request)
    slot = (request.headers.get("Authorization", ""), key)
    if slot in _replies:
        status, body, content_type = _replies[slot]
        return web.Response(status=status, body=body, content_type=content_type)
    response = await handler(request)
    if (
        isinstance(response, web.Response)
        and response.status < 500
        and isinstance(response.body, bytes)
    ):
        _replies[slot] = (response.status, response.body, response.content_type)
    return response


def main() -> None:
    """Parse arguments, point the store at ``--store`` and serve until terminated."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--store", type=Path, required=True)
    args = parser.parse_args()
    store_path: Path = args.store

    def load(self: resources.Store) -> None:
        if store_path.exists():
            with store_path.open("rb") as f:
                self.clear()
                self.update(pickle.load(f))  # noqa: S301 - our own file

    def dump(self: resources.Store) -> None:
        tmp = store_path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump(dict(self), f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(store_path)

    resources.Store.try_load_from_disk = load
    resources.Store.dump_to_disk = dump
    resources.store.try_load_from_disk()
    server.app.middlewares.append(idempotency)
    server.app.middlewares.append(stripe_shim.shim)
    web.run_app(server.app, host="127.0.0.1", port=args.port, print=None)


if __name__ == "__main__":
    main()
