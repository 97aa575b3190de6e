"""``make dev``: the whole console on one port, with local stand-ins for every vendor.

    python -m devstack [--port 8000] [--data-dir .devdata] [--throwaway-db]

1. builds the SPA when its sources changed (``npm ci`` first when packages changed), and the
   handbook (``docs/`` with MkDocs, tools/handbook.py) when its sources changed;
2. PostgreSQL from ``DATABASE_URL`` or an embedded server under ``--data-dir`` (data survives
   restarts), then ``alembic upgrade head``;
3. moto (Cognito), localstripe (Stripe), the DNS stand-in and the SMTP sink on free loopback
   ports, bootstrapped idempotently;
4. the demo account, printed with its sign-in at start;
5. ``python -m api.app.commands.reconcile --fix`` against localstripe, its lines printed (a failure
   is printed too, and the stack goes on);
6. one worker of the job engine (``python -m api.app.commands.worker``: the emails and the periodic
   tasks), its output in ``--data-dir``/logs/worker.log, its metrics on a free loopback port;
7. the API, serving the SPA, the hosted-UI stand-in, the dev mailbox, the DNS records
   endpoint (``/dev/dns/<name>``) and the handbook (``/handbook/``), on 127.0.0.1:PORT, its
   metrics on a free loopback port.

Ctrl-C stops everything. ``--throwaway-db`` uses a fresh database dropped on exit (tests).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from pathlib import Path

import uvicorn

from devstack import bootstrap, services, webbuild
from devstack.seed import DEMO_EMAIL, DEMO_PASSWORD, EMPTY_EMAIL, seed
from tools import handbook


def _say(message: str) -> None:
    print(f"[dev] {message}", flush=True)


def _reconcile_billing() -> None:
    """Report and repair drift between the accounts and localstripe (api/billing/reconcile.py),
    e.g. a webhook localstripe sent while the API was stopped. Never stops the dev stack."""
    from api.billing.reconcile import run
    from api.kernel.config import Settings

    try:
        lines, _ = asyncio.run(run(Settings(), fix=True))
    except Exception as exc:  # any failure: say so and serve anyway
        _say(f"billing reconciliation failed, going on: {exc!r}")
        return
    for line in lines:
        _say(f"billing reconciliation: {line}")


async def _serve(host: str, port: int, *, with_handbook: bool) -> None:
    from api.kernel.config import Settings
    from api.kernel.http.metrics import serve_metrics
    from devstack.app import create_dev_app

    app = create_dev_app(Settings())
    metrics = serve_metrics(app.state.metrics.registry, host="127.0.0.1", port=0)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        proxy_headers=False,  # the client address is TRUSTED_PROXIES' business alone
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():  # noqa: ASYNC110 - uvicorn has no event
        await asyncio.sleep(0.05)
    if server.started:
        url = f"http://127.0.0.1:{port}"
        _say(f"Console ready at {url}")
        _say(f"Sign in as {DEMO_EMAIL} / {DEMO_PASSWORD}  (mailbox: {url}/dev/mailbox)")
        if with_handbook:
            _say(f"Handbook (the docs): {url}/handbook/")
        _say(f'TXT records of the DNS stand-in: PUT {url}/dev/dns/<domain> {{"txt": [...]}}')
        _say(f"An account without usage: {EMPTY_EMAIL} / {DEMO_PASSWORD}")
        _say(f"Replay metering traffic: python -m devstack.replay --url {url}")
        _say(f"API metrics: http://127.0.0.1:{metrics.port}/metrics")
    try:
        await task
    finally:
        metrics.close()


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Parse arguments, start everything, serve until interrupted, then stop it all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--data-dir", type=Path, default=services.ROOT / ".devdata")
    parser.add_argument("--throwaway-db", action="store_true")
    parser.add_argument(
        "--skip-build", action="store_true", help="serve web/dist and site/ as they are"
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    parser.add_argument("--moto-url", help="use this moto server instead of starting one")
    parser.add_argument("--localstripe-url", help="use this localstripe instead of starting one")
    parser.add_argument(
        "--stripe-js-url", help="Stripe.js URL as the browser reaches it (with --localstripe-url)"
    )
    args = parser.parse_args()
    data_dir: Path = args.data_dir.resolve()
    public_url = f"http://127.0.0.1:{args.port}"

    if not args.skip_build:
        webbuild.build_if_changed(_say)
        with_handbook = handbook.build_if_changed(_say)
    else:
        with_handbook = (handbook.SITE / "index.html").is_file()

    # SIGTERM (docker stop, a supervisor) stops everything as Ctrl-C does: uvicorn re-raises
    # the signal once it has shut down, and this turns it into KeyboardInterrupt, so the
    # stand-ins and PostgreSQL below are stopped rather than left running.
    signal.signal(signal.SIGTERM, _interrupted)
    postgres = services.start_postgres(data_dir / "pg")
    children: list[services.ChildProcess] = []
    throwaway = f"console_tmp_{services.random_suffix()}" if args.throwaway_db else None
    try:
        if throwaway:
            database_url = postgres.create_database(throwaway)
        else:
            database_url = postgres.default_url or postgres.create_database("console")
        services.migrate(database_url)
        _say("database migrated")
        if args.moto_url:  # already running (docker-compose.yml)
            moto_url = args.moto_url.rstrip("/")
            services.wait_http(moto_url + "/moto-api/")
        else:
            children.append(services.start_moto(data_dir / "logs"))
            moto_url = children[-1].url
        if args.localstripe_url:
            localstripe_url = args.localstripe_url.rstrip("/")
            services.wait_http(localstripe_url + "/js.stripe.com/v3/")
        else:
            children.append(services.start_localstripe(data_dir))
            localstripe_url = children[-1].url
        children.append(services.start_dns(data_dir / "dns.json"))
        dns_port = children[-1].port
        mailbox = data_dir / "mailbox.jsonl"
        children.append(services.start_smtp_sink(mailbox))
        stand_ins = asyncio.run(
            bootstrap.bootstrap(
                moto_url, localstripe_url, public_url, dns_port, children[-1].port, str(mailbox)
            )
        )
        bootstrap.register_stripe_webhook(stand_ins.localstripe_url, public_url)
        os.environ.update(
            bootstrap.api_environment(
                stand_ins,
                database_url=database_url,
                public_url=public_url,
                web_dist=str(services.ROOT / "web" / "dist"),
            )
        )
        if args.stripe_js_url:
            os.environ["STRIPE_JS_URL"] = args.stripe_js_url
        from api.kernel.config import Settings

        created, provisioned = asyncio.run(seed(Settings()))
        _say(
            f"moto Cognito at {stand_ins.moto_url}, localstripe at {stand_ins.localstripe_url}; "
            f"demo account {'created' if created else 'kept'}, "
            f"{provisioned} user(s) created in the stand-in pool"
        )
        _reconcile_billing()
        children.append(services.start_worker(data_dir / "logs"))
        _say(
            f"job worker started (log: {data_dir / 'logs' / 'worker.log'}, metrics: "
            f"http://127.0.0.1:{children[-1].port}/metrics; the queue: python -m "
            f"api.app.commands.queue)"
        )
        asyncio.run(_serve(args.host, args.port, with_handbook=with_handbook))
    except KeyboardInterrupt:
        pass
    finally:
        for child in reversed(children):
            child.stop()
        if throwaway:
            postgres.drop_database(throwaway)
        postgres.stop()
        _say("stopped")


if __name__ == "__main__":
    main()
