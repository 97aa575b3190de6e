"""Fixtures of the API tests: the stand-in stack, the app with its lifespan and a job worker
beside it (in-process, as ``make dev`` runs one beside the API), an HTTP client, and a factory
of signed-in users in fresh accounts (so every test owns its data).

The session fixtures belong to one pytest process: under pytest-xdist (``make test-api``
runs two workers) each worker has its own stack (moto, localstripe, the DNS stand-in and the
SMTP sink on free ports; the mailbox, the DNS records and the Stripe store in folders named
after its database), its own database, app and job worker, so a test never meets another
worker's data, mail or jobs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import asyncpg
import httpx
import procrastinate
import procrastinate.exceptions
import pytest
import respx
import structlog
from fastapi import FastAPI
from sqlalchemy import update
from sqlalchemy.engine import make_url

from api.account.service import create_account
from api.adapters.cognito import CognitoClient
from api.app.features import job_tasks
from api.app.jobs.stalled import MAINTENANCE_QUEUE
from api.app.worker import create_job_app
from api.kernel.deferred import EMAIL_QUEUE
from api.keys.service import open_current_key
from api.models import Account, AuthType, Role, User
from api.principal.resources import JobResources
from devstack.app import create_dev_app
from devstack.stack import Stack, running_stack
from tests.api.cognito_model import CognitoModelCheck, CognitoModelViolation

PASSWORD = "Correct-horse-42!"

# Every request of every CognitoClient the API tests build (the app's, the job worker's, a
# test's own) is checked against botocore's cognito-idp model: moto accepts what the real
# service refuses (README "Tests").
COGNITO_MODEL = CognitoModelCheck()


@pytest.fixture(scope="session", autouse=True)
def cognito_requests_checked() -> Iterator[CognitoModelCheck]:
    """Give every CognitoClient built during the session the model check's request hook
    (autouse and session-scoped: in place before the app fixture builds its client)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CognitoClient, "__init__", COGNITO_MODEL.checking(CognitoClient.__init__))
        yield COGNITO_MODEL


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Fail the test that sent a request Cognito would refuse, even where the product caught
    the hook's exception (or a job the test started sent it while the test ran)."""
    try:
        return (yield)
    finally:
        found = COGNITO_MODEL.take()
        if found:
            raise CognitoModelViolation(found)


@pytest.fixture(scope="session", autouse=True)
def _loggers_never_cached() -> Iterator[None]:
    """structlog's ``capture_logs`` reaches only loggers that look the configuration up when
    they log; a lifespan's ``configure_logging`` (every app a test starts) turns caching on,
    and a logger cached before another test's lifespan configured anew would log past the
    capture. So in the tests no logger is cached, whoever configures structlog."""
    configure = structlog.configure

    def uncached(**settings: Any) -> None:
        configure(**{**settings, "cache_logger_on_first_use": False})

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(structlog, "configure", uncached)
        structlog.configure(cache_logger_on_first_use=False)
        yield


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    # Under pytest-xdist each worker gets an embedded PostgreSQL of its own: one server's 100
    # connections do not hold two workers' apps, job workers and replicas at their peaks.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    with running_stack(postgres_dir=f"pg-{worker}" if worker else "pg") as running:
        yield running


@pytest.fixture(scope="session")
async def app(stack: Stack) -> AsyncIterator[FastAPI]:
    application = create_dev_app(stack.settings)
    async with application.router.lifespan_context(application):
        resources = JobResources(stack.settings, pool_size=4)
        jobs = create_job_app(stack.settings, resources=resources)
        async with jobs.open_async():
            worker = asyncio.create_task(_supervised_worker(jobs))
            yield application
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        await resources.aclose()


async def _supervised_worker(jobs: procrastinate.App) -> None:
    """The job worker beside the app, restarted when it stops on a lost database connection,
    as the deployment restarts a worker process that exits (README "Background work"): a
    test that ends every backend of the database (:func:`terminate_database_connections`)
    would otherwise leave every later test without a worker, its emails never sent."""
    while True:
        try:
            await jobs.run_worker_async(
                # The console's queues; a test's own queue is left to that test.
                queues=[EMAIL_QUEUE, *{job.task.queue for job in job_tasks()}, MAINTENANCE_QUEUE],
                concurrency=4,
                install_signal_handlers=False,
                fetch_job_polling_interval=0.5,
                name="tests",
            )
            return
        except procrastinate.exceptions.ConnectorException:
            await asyncio.sleep(0.2)


async def terminate_database_connections(app: FastAPI) -> int:
    """What an administrator or a failover does: end every other backend of the app's
    database. Returns how many were ended; ``app.state.resources.replace_pools()`` gives the
    app live connections again. Only this worker's database: the other pytest-xdist workers'
    connections, on databases of their own on the same server, are left alone."""
    url = make_url(app.state.settings.database_url).set(drivername="postgresql")
    admin = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        terminated = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()
    return int(terminated)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@pytest.fixture
def cognito(app: FastAPI) -> CognitoClient:
    client: CognitoClient = app.state.resources.cognito
    return client


@dataclass
class SignedIn:
    """A user in an account of its own, with an access token."""

    user: User
    account: Account
    access_token: str
    refresh_token: str
    password: str
    api_key: str  # the account's current API key, in clear (stored only sealed)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}


MakeUser = Callable[..., Awaitable[SignedIn]]


def unique_domain(prefix: str = "corp") -> str:
    """A domain nobody else in the test run uses (``.dev``: a public suffix, not special-use)."""
    return f"{prefix}-{secrets.token_hex(4)}.dev"


async def publish_txt(client: httpx.AsyncClient, name: str, *values: str) -> None:
    """Set the TXT values of ``name`` in the DNS stand-in (``PUT /dev/dns/<name>``)."""
    response = await client.put(f"/dev/dns/{name}", json={"txt": list(values)})
    assert response.status_code == 200, response.text
    assert response.json()["txt"] == list(values)


async def verified_domain(
    client: httpx.AsyncClient, headers: dict[str, str], domain: str
) -> dict[str, Any]:
    """Add ``domain`` to the account of ``headers``, publish its TXT record in the DNS
    stand-in and verify it, as a user of the console does; returns the verified domain."""
    added = await client.post("/web/sso/domains", headers=headers, json={"domain": domain})
    assert added.status_code == 201, added.text
    record = added.json()["domain"]["record"]
    await publish_txt(client, record["name"], record["value"])
    verified = await client.post(
        f"/web/sso/domains/{added.json()['domain']['id']}/verify", headers=headers
    )
    assert verified.status_code == 200, verified.text
    assert verified.json()["domain"]["state"] == "Verified", verified.text
    result: dict[str, Any] = verified.json()["domain"]
    return result


async def require_google_sso(app: FastAPI, account: Account) -> None:
    """Turn "require Google SSO" on for ``account`` directly (its users here may be password
    users, who cannot turn it on through ``POST /web/sso``)."""
    async with app.state.resources.sessionmaker() as db, db.begin():
        await db.execute(
            update(Account).where(Account.id == account.id).values(require_google_sso=True)
        )


async def google_sso_for(
    app: FastAPI, client: httpx.AsyncClient, owner: SignedIn, *domains: str
) -> None:
    """Verify ``domains`` for the owner's account through the DNS stand-in, then require
    Google SSO on it: an account people of those domains may auto-join."""
    for domain in domains:
        await verified_domain(client, owner.headers, domain)
    await require_google_sso(app, owner.account)


async def current_api_key(app: FastAPI, account_id: uuid.UUID) -> str:
    """The account's newest API key, opened with the app's key ring (what Reveal shows)."""
    async with app.state.resources.sessionmaker() as db:
        return await open_current_key(
            db=db, ring=app.state.resources.key_ring, account_id=account_id
        )


async def mails_to(
    client: httpx.AsyncClient, email: str, expected: int = 1, wait_s: float = 30.0
) -> list[dict[str, Any]]:
    """The messages in ``email``'s dev mailbox (newest first), once there are ``expected`` of
    them or ``wait_s`` seconds passed: the console's own emails leave from the job worker,
    after the request that caused them answered. The worker beside the app takes jobs in turn,
    four at a time, after whatever earlier tests left it, so the default wait is what a loaded
    two-core machine may need, not what a message usually takes (well under a second); it is
    spent only when the message never comes."""
    deadline = time.monotonic() + wait_s
    while True:
        box: list[dict[str, Any]] = (await client.get("/dev/mailbox", params={"to": email})).json()
        if len(box) >= expected or time.monotonic() > deadline:
            return box
        await asyncio.sleep(0.1)


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{secrets.token_hex(4)}@example-corp.com"


def email_of_length(length: int) -> str:
    """A unique address at example-corp.com of exactly ``length`` characters (83 to 145)."""
    local = f"long-{secrets.token_hex(8)}".ljust(64, "x")
    return f"{local}@{'d' * (length - 82)}.example-corp.com"


@pytest.fixture
def make_user(app: FastAPI, cognito: CognitoClient) -> MakeUser:
    """Create an account (or use ``account``), a user in it, the pool user, and sign in."""

    async def make(
        *,
        account_name: str = "Test Account",
        account: Account | None = None,
        first_name: str = "Test",
        last_name: str = "User",
        email: str | None = None,
        auth_type: AuthType = AuthType.EMAIL,
        role: Role = Role.OWNER,
    ) -> SignedIn:
        email = email or unique_email()
        # Federated users' Cognito usernames are google_<id> / github_<id> (SPEC 4), and
        # <provider name>_<NameID> for a SAML connection's.
        identity_id = {
            AuthType.EMAIL: email,
            AuthType.GOOGLE_SSO: f"google_{secrets.token_hex(8)}",
            AuthType.GITHUB: f"github_{secrets.token_hex(8)}",
            AuthType.SAML_SSO: f"saml-{secrets.token_hex(8)}_{email}",
        }[auth_type]
        async with app.state.resources.sessionmaker() as db, db.begin():
            if account is None:
                account = await create_account(
                    db=db, settings=app.state.settings, name=account_name
                )
            user = User(
                account_id=account.id,
                identity_id=identity_id,
                first_name=first_name,
                last_name=last_name,
                email=email,
                auth_type=auth_type,
                role=role,
            )
            db.add(user)
        created = await cognito.admin_create_user(
            identity_id,
            {"email": email, "given_name": first_name, "family_name": last_name},
            suppress_message=True,
        )
        async with app.state.resources.sessionmaker() as db, db.begin():
            # Bound to the pool user, as a sign-in through the API does.
            await db.execute(
                update(User).where(User.id == user.id).values(identity_sub=created.sub)
            )
        user.identity_sub = created.sub
        await cognito.admin_set_user_password(identity_id, PASSWORD, permanent=True)
        result = await cognito.password_auth(identity_id, PASSWORD)
        assert result.tokens is not None and result.tokens.refresh_token
        return SignedIn(
            user,
            account,
            result.tokens.access_token,
            result.tokens.refresh_token,
            PASSWORD,
            await current_api_key(app, account.id),
        )

    return make


@pytest.fixture
def hosted_ui(app: FastAPI) -> Iterator[respx.MockRouter]:
    """Route the adapter's calls to the hosted UI (``http://testserver/oauth2/token`` in the
    tests' settings) to the in-process stand-in; every other call goes out as usual."""
    with respx.mock(assert_all_mocked=False, assert_all_called=False) as router:
        router.route(host="testserver").mock(side_effect=respx.ASGIHandler(app))
        router.route().pass_through()
        yield router


@dataclass
class Federated:
    """A third-party identity signed in through the hosted-UI stand-in."""

    username: str
    email: str
    first_name: str
    last_name: str
    access_token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}


REDIRECT_URI = "http://testserver/oauth/sso"


@dataclass
class Authorized:
    """What the hosted UI sends the browser back with."""

    code: str
    state: str


async def authorize(
    client: httpx.AsyncClient,
    email: str,
    provider: str = "Google",
    first: str = "Fed",
    hosted_domain: str = "",
) -> Authorized:
    """Start the sign-in through the API (which sets the browser's ``oauth_flow`` cookie in
    ``client``), sign in at the hosted-UI stand-in (``hosted_domain``: Google's ``hd`` of a
    Workspace account, empty for a personal one), and return the code and state it
    redirects back with."""
    start = await client.post(
        "/web/session/authorize",
        json={
            "identityProvider": "Github" if provider == "GitHub" else provider,
            "redirectUri": REDIRECT_URI,
        },
    )
    assert start.status_code == 200, start.text
    query = {k: v[0] for k, v in parse_qs(urlsplit(start.json()["authorizeUrl"]).query).items()}
    response = await client.post(
        "/oauth2/authorize",
        data={
            "identity_provider": query["identity_provider"],
            "redirect_uri": query["redirect_uri"],
            "client_id": query["client_id"],
            "state": query["state"],
            "code_challenge": query["code_challenge"],
            "email": email,
            "given_name": first,
            "family_name": "Erated",
            "hd": hosted_domain,
        },
    )
    assert response.status_code == 302, response.text
    returned = parse_qs(urlsplit(response.headers["location"]).query)
    return Authorized(returned["code"][0], returned["state"][0])


async def exchange(client: httpx.AsyncClient, authorized: Authorized) -> httpx.Response:
    """POST /web/session/token as the SPA's /oauth/sso page does."""
    return await client.post(
        "/web/session/token",
        json={"code": authorized.code, "state": authorized.state, "redirectUri": REDIRECT_URI},
    )


MakeFederated = Callable[..., Awaitable[Federated]]


async def sso_lookup(client: httpx.AsyncClient, fed: Federated) -> httpx.Response:
    """GET /web/sso-accounts for the identity itself, as /oauth/sso asks after the exchange."""
    return await client.get(
        "/web/sso-accounts",
        params={"cognitoId": fed.username, "email": fed.email},
        headers=fed.headers,
    )


async def sso_join(
    client: httpx.AsyncClient, fed: Federated, account_id: uuid.UUID
) -> httpx.Response:
    """POST /web/sso-accounts/join for the identity itself."""
    return await client.post(
        "/web/sso-accounts/join",
        json={
            "accountId": str(account_id),
            "userFirstName": "Jo",
            "userLastName": "Iner",
            "userEmail": fed.email,
            "userIdentityId": fed.username,
        },
        headers=fed.headers,
    )


@pytest.fixture
def make_federated(client: httpx.AsyncClient, hosted_ui: respx.MockRouter) -> MakeFederated:
    """Sign a Google (or GitHub) identity in and exchange its code through the API."""

    async def make(
        email: str | None = None, provider: str = "Google", hosted_domain: str | None = None
    ) -> Federated:
        """``hosted_domain``: Google's ``hd``; by default the email's domain (a Workspace
        account of it), ``""`` for a personal Google account."""
        email = email or unique_email("fed")
        if hosted_domain is None:
            hosted_domain = email.rsplit("@", 1)[1] if provider == "Google" else ""
        authorized = await authorize(client, email, provider, hosted_domain=hosted_domain)
        response = await exchange(client, authorized)
        assert response.status_code == 200, response.text
        body = response.json()
        identity = body["identity"]
        return Federated(
            identity["username"],
            identity["email"],
            identity["firstName"],
            identity["lastName"],
            body["tokens"]["accessToken"],
        )

    return make
