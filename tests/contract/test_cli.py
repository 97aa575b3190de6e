"""console-cli (cli/, docs/integrators/cli.md) as an integrator gets it: ``pip install ./cli``
into a new virtual environment, whose build generates the client from openapi.json (the
pinned build and runtime packages come from the package registry), then each command run as
that venv's ``console-cli`` against the dev stack with the access token of an Owner who
registered through the API: users, keys, usage, the audit log as CSV, and the typed errors as
one line on stderr with their exit status.

The install starts first and runs while the dev stack starts (:func:`background`), and so
does ``mypy --strict`` on the CLI with the client generated from today's contract: neither
costs the stage much beyond the stack's own start."""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from devstack.services import ROOT

PASSWORD = "Cli-owner-2026!"
MEMBER_PASSWORD = "Cli-member-2026!"
BACKGROUND_TIMEOUT = 600


@dataclass
class Started:
    """A command left running, its output going to ``log``."""

    process: subprocess.Popen[bytes]
    log: Path

    def wait(self) -> str:
        """Wait for it; fails when it failed, with the end of its output. Returns the output."""
        status = self.process.wait(BACKGROUND_TIMEOUT)
        output = self.log.read_text()
        assert status == 0, output[-6000:]
        return output


@dataclass
class Background:
    """What starts at once and runs while the dev stack starts: ``pip install ./cli`` into
    ``venv``, and the type check of console_cli on a freshly generated client."""

    venv: Path
    install: Started
    type_check: Started


@dataclass
class Owner:
    """An account's Owner, registered through the API, with a signed-in access token."""

    email: str
    token: str


@dataclass
class Ran:
    """What one ``console-cli`` run did."""

    status: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """Its stdout as JSON (``--json``)."""
        assert self.status == 0, self
        return json.loads(self.stdout)


@pytest.fixture(scope="module")
def background(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Background]:
    """Start, without waiting: ``pip install ./cli`` into a new venv, and the type check (see
    :func:`test_the_cli_type_checks_against_the_client_of_todays_contract`)."""
    root = tmp_path_factory.mktemp("cli")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    install = _start(
        root / "pip-install.log", [venv / "bin" / "pip", "install", "--no-input", ROOT / "cli"]
    )

    # A copy of cli/ with the client generated as its build does, then mypy --strict as
    # configured in cli/pyproject.toml.
    copy = root / "type-check"
    shutil.copytree(
        ROOT / "cli", copy, ignore=shutil.ignore_patterns("generated", "__pycache__", "*_cache")
    )
    generate = [
        Path(sys.executable).parent / "openapi-python-client",
        "generate",
        "--path",
        ROOT / "openapi.json",  # what the build reads: cli/../openapi.json
        "--meta",
        "none",
        "--config",
        copy / "openapi-python-client.yaml",
        "--output-path",
        copy / "console_cli" / "generated",
        "--fail-on-warning",
    ]
    mypy = [sys.executable, "-m", "mypy", "--cache-dir", root / "mypy-cache"]
    script = f"cd {shlex.quote(str(copy))} && {_shell(generate)} && {_shell(mypy)}"
    type_check = _start(root / "type-check.log", ["sh", "-c", script])
    try:
        yield Background(venv, install, type_check)
    finally:
        for started in (install, type_check):
            if started.process.poll() is None:
                started.process.kill()
                started.process.wait()


@pytest.fixture(scope="module")
def cli(background: Background, console_url: str) -> Path:
    """The installed ``console-cli``: the dev stack starts (``console_url``) while pip works."""
    background.install.wait()
    return background.venv / "bin" / "console-cli"


@pytest.fixture(scope="module")
def owner(console_url: str) -> Owner:
    """A new account's Owner (:func:`register`)."""
    return register(console_url, "Olga")


def register(console_url: str, first_name: str) -> Owner:
    """A new account's Owner: registered, their address verified with the emailed code (as
    inviting and access tokens require), then signed in for an access token."""
    email = f"{first_name.lower()}-{secrets.token_hex(4)}@cli-labs.dev"
    registered = httpx.post(
        f"{console_url}/web/registration",
        json={
            "firstName": first_name,
            "lastName": "Owner",
            "emailAddress": email,
            "organizationName": "CLI Labs",
            "newPassword": PASSWORD,
        },
    )
    assert registered.status_code == 201, registered.text
    verified = httpx.post(
        f"{console_url}/web/session/email-verification/confirm",
        headers={"Authorization": f"Bearer {registered.json()['accessToken']}"},
        json={"code": _mail(console_url, email)["code"]},
    )
    assert verified.status_code == 204, verified.text
    return Owner(email, _sign_in(console_url, email, PASSWORD))


def run(cli: Path, url: str | None, token: str | None, *args: str) -> Ran:
    """``console-cli *args`` configured through CONSOLE_URL and CONSOLE_TOKEN (unset when
    None)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CONSOLE_URL", "CONSOLE_TOKEN")}
    env.update({k: v for k, v in (("CONSOLE_URL", url), ("CONSOLE_TOKEN", token)) if v})
    done = subprocess.run(
        [str(cli), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def assert_error(ran: Ran, status: int, code: str) -> str:
    """``ran`` failed with ``status`` and one line ``error: <code>: <message>`` on stderr and
    nothing on stdout; returns the message."""
    assert ran.status == status, ran
    assert ran.stdout == "", ran
    lines = ran.stderr.splitlines()
    assert len(lines) == 1, ran
    prefix = f"error: {code}: "
    assert lines[0].startswith(prefix), ran
    message = lines[0].removeprefix(prefix)
    assert message.strip(), ran
    return message


def test_pip_install_gives_the_command_naming_its_configuration(cli: Path) -> None:
    helped = run(cli, None, None, "--help")
    assert helped.status == 0, helped
    for text in ("CONSOLE_URL", "CONSOLE_TOKEN", "--url", "--token", "--json"):
        assert text in helped.stdout, text
    for group in ("users", "keys", "tokens", "audit", "usage"):
        assert group in helped.stdout, group
    assert run(cli, None, None, "--version").stdout.strip() == "console-cli, version 0.1.0"
    # The client in the installed package is the one the build generated from openapi.json.
    python = cli.parent / "python"
    generated = subprocess.run(
        [str(python), "-c", "import console_cli.generated.api.users.invite_user as m; print(m)"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert generated.returncode == 0, generated.stderr
    assert "site-packages/console_cli/generated" in generated.stdout


def test_users_list_invite_set_role_remove(cli: Path, console_url: str, owner: Owner) -> None:
    # Configured by the options this time, by the environment after.
    listed = run(cli, None, None, "--url", console_url, "--token", owner.token, "users", "list")
    assert listed.status == 0, listed
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["ID", "EMAIL", "NAME", "ROLE", "STATUS"]
    (row,) = [row.split() for row in rows if row.split()[1] == owner.email]
    assert row[-2:] == ["Owner", "Active"]

    invitee = f"mia-{secrets.token_hex(3)}@cli-labs.dev"
    invited = run(
        cli,
        console_url,
        owner.token,
        "users",
        "invite",
        invitee,
        "--first-name",
        "Mia",
        "--last-name",
        "Moss",
        "--role",
        "member",
        "--json",
    )
    assert invited.json()["email"] == invitee
    assert (invited.json()["role"], invited.json()["status"]) == ("Member", "Pending")

    promoted = run(cli, console_url, owner.token, "--json", "users", "set-role", invitee, "Admin")
    assert promoted.json()["role"] == "Admin"
    users = run(cli, console_url, owner.token, "users", "list", "--json").json()
    assert {(user["email"], user["role"]) for user in users} >= {
        (owner.email, "Owner"),
        (invitee, "Admin"),
    }

    removed = run(cli, console_url, owner.token, "users", "remove", invitee)
    assert removed.status == 0, removed
    assert removed.stdout.strip() == f"Removed {invitee}."
    users = run(cli, console_url, owner.token, "users", "list", "--json").json()
    assert invitee not in [user["email"] for user in users]
    gone = run(cli, console_url, owner.token, "users", "remove", invitee)
    assert invitee in assert_error(gone, 4, "NotFound")


def test_keys_list_roll_set_a_limit_and_the_usage_they_meter(
    cli: Path, console_url: str, owner: Owner
) -> None:
    (first,) = run(cli, console_url, owner.token, "keys", "list", "--json").json()
    rolled = run(
        cli,
        console_url,
        owner.token,
        "keys",
        "roll",
        "--overlap",
        "1h",
        "--monthly-limit",
        "5000",
        "--json",
    ).json()
    assert [key["id"] for key in rolled][1] == first["id"]
    assert rolled[0]["monthlyLimit"] == 5000
    assert rolled[0]["expiresAt"] is None and rolled[1]["expiresAt"] is not None  # the overlap

    limited = run(cli, console_url, owner.token, "keys", "set-limit", rolled[0]["id"], "1000")
    assert limited.status == 0, limited
    assert limited.stdout.splitlines()[1].split()[-1] == "1000"  # the current key's row
    unlimited = run(cli, console_url, owner.token, "--json", "keys", "set-limit", "current", "none")
    assert unlimited.json()[0]["monthlyLimit"] is None

    # The revealed key meters, and the billing cycle's usage shows it.
    key = run(cli, console_url, owner.token, "keys", "reveal").stdout.strip()
    assert key.startswith("ak_") and rolled[0]["masked"][-4:] == key[-4:]
    record = {
        "idempotencyKey": str(uuid.uuid4()),
        "platform": "api",
        "runs": 1,
        "credits": 3,
        "time": datetime.now(UTC).isoformat(),
        "labels": {"project": "checkout-suite"},
    }
    metered = httpx.post(
        f"{console_url}/metering/usage", headers={"X-API-Key": key}, json={"records": [record]}
    )
    assert metered.status_code == 200, metered.text
    cycles = run(cli, console_url, owner.token, "usage", "cycles", "--json").json()
    assert (cycles[-1]["requests"], cycles[-1]["api"]["runs"]) == (3, 1)
    breakdown = run(cli, console_url, owner.token, "usage", "breakdown", "--json").json()
    assert [(k["masked"], k["requests"]) for k in breakdown["byKey"]] == [(rolled[0]["masked"], 3)]
    assert [(v["value"], v["requests"]) for v in breakdown["byLabel"]] == [("checkout-suite", 3)]
    table = run(cli, console_url, owner.token, "usage", "breakdown", "--cycle", "current")
    assert "By label project:" in table.stdout and "checkout-suite" in table.stdout
    exported = run(cli, console_url, owner.token, "usage", "export")
    assert exported.status == 0, exported
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert sum(int(row["credits"]) for row in rows if row["platform"] == "api") == 3

    missing = run(cli, console_url, owner.token, "keys", "set-limit", str(uuid.uuid4()), "5")
    assert_error(missing, 4, "NotFound")


def test_usage_query_over_a_range_with_an_access_token_for_usage_only(
    cli: Path, console_url: str
) -> None:
    # An account of its own, so that its usage is what this test meters: four records now,
    # with the label "suite" on three of them.
    owner = register(console_url, "Uma")
    key = run(cli, console_url, owner.token, "keys", "reveal").stdout.strip()
    (current,) = run(cli, console_url, owner.token, "keys", "list", "--json").json()
    now = datetime.now(UTC)
    sent = [
        ("web", 4, 1, {"suite": "checkout"}),
        ("nativeMobile", 2, 1, {"suite": "checkout"}),
        ("api", 1, 1, {"suite": "search"}),
        ("web", 5, 2, {}),
    ]
    records = [
        {
            "idempotencyKey": str(uuid.uuid4()),
            "platform": platform,
            "credits": credits,
            "runs": runs,
            "time": now.isoformat(),
            "labels": labels,
        }
        for platform, credits, runs, labels in sent
    ]
    metered = httpx.post(
        f"{console_url}/metering/usage", headers={"X-API-Key": key}, json={"records": records}
    )
    assert metered.json() == {"accepted": 4, "duplicates": 0}, metered.text
    # A script's token that may read usage and nothing else.
    created = httpx.post(
        f"{console_url}/web/access-tokens",
        headers={"Authorization": f"Bearer {owner.token}"},
        json={
            "name": "Usage report",
            "expiresOn": (now + timedelta(days=7)).date().isoformat(),
            "scopes": ["usage:read"],
        },
    )
    assert created.status_code == 201, created.text
    token = created.json()["secret"]
    assert token.startswith("cat_")

    # The last 7 days by day: the account is younger, so they start at its first cycle, today.
    today = f"{now:%Y-%m-%d} 00:00 UTC"
    figures = ["12", "4", "5", "9", "2", "1"]  # requests, records, runs; web, mobile, api
    days = run(cli, console_url, token, "usage", "query")
    assert days.status == 0, days
    header, *rows, blank, total = days.stdout.splitlines()
    assert header.split()[:4] == ["START", "REQUESTS", "RECORDS", "RUNS"]
    assert rows[0].startswith(today), days
    assert rows[0].split()[3:] == figures, days
    assert blank == "", days
    assert total.startswith(f"Total: 12 requests, 4 records, 5 runs from {today} to "), total

    # By API key: the key as the console shows it.
    by_key = run(cli, console_url, token, "usage", "query", "--group-by", "api-key")
    header, row = by_key.stdout.splitlines()[:2]
    assert header.split()[:3] == ["START", "API", "KEY"], by_key
    assert row.split() == [*today.split(), current["masked"], *figures], by_key

    # Per hour by the label "suite" as CSV, a bucket a page: the header line once, then each
    # group of the records' hour per platform, the most requests first, the rest last.
    hour = now.replace(minute=0, second=0, microsecond=0)
    later = (hour + timedelta(hours=6)).isoformat()
    hourly = ("usage", "query", "--granularity", "hour", "--to", later, "--page-size", "1")
    by_suite = run(cli, console_url, token, *hourly, "--group-by", "label:suite", "--csv")
    assert by_suite.status == 0, by_suite
    assert by_suite.stdout.count("start,end,") == 1, by_suite
    lines = list(csv.DictReader(io.StringIO(by_suite.stdout)))
    assert {line["start"] for line in lines} == {hour.strftime("%Y-%m-%dT%H:00:00Z")}
    assert [
        (line["kind"], line["group"], line["platform"], line["requests"], line["runs"])
        for line in lines
    ] == [
        ("labelValue", "checkout", "web", "4", "1"),
        ("labelValue", "checkout", "nativeMobile", "2", "1"),
        ("labelValue", "checkout", "api", "0", "0"),
        ("labelValue", "search", "web", "0", "0"),
        ("labelValue", "search", "nativeMobile", "0", "0"),
        ("labelValue", "search", "api", "1", "1"),
        ("withoutLabel", "", "web", "5", "2"),
        ("withoutLabel", "", "nativeMobile", "0", "0"),
        ("withoutLabel", "", "api", "0", "0"),
    ]
    # Ungrouped, every hour from the account's first to --to, each on a page of its own, and
    # the same buckets as JSON.
    every = run(cli, console_url, token, *hourly, "--csv")
    assert every.stdout.count("start,end,") == 1, every
    lines = list(csv.DictReader(io.StringIO(every.stdout)))
    starts = sorted({line["start"] for line in lines})
    assert len(starts) >= 6 and len(lines) == 3 * len(starts), every
    assert starts[-1] == (hour + timedelta(hours=5)).strftime("%Y-%m-%dT%H:00:00Z")
    assert sum(int(line["requests"]) for line in lines) == 12
    answer = run(cli, console_url, token, *hourly, "--json").json()
    assert len(answer["buckets"]) == len(starts) and answer["nextCursor"] is None
    assert [b["requests"] for b in answer["buckets"] if b["requests"]] == [12]

    # The breakdown of the current cycle reads the same figures, with this token too.
    breakdown = run(cli, console_url, token, "usage", "breakdown", "--json").json()
    assert [(k["masked"], k["requests"]) for k in breakdown["byKey"]] == [(current["masked"], 12)]
    assert (breakdown["labels"], breakdown["label"]) == (["suite"], "suite")
    assert [(v["value"], v["requests"]) for v in breakdown["byLabel"]] == [
        ("checkout", 6),
        ("search", 1),
    ]
    assert breakdown["unlabelled"]["requests"] == 5

    # Refusals: one line each, the console's code, a non-zero status.
    not_a_time = run(cli, console_url, token, "usage", "query", "--from", later, "--to", "now")
    assert not_a_time.status == 2 and "Invalid value for '--to'" in not_a_time.stderr, not_a_time
    yesterday = (now - timedelta(days=1)).date().isoformat()
    reversed_range = ("--from", now.date().isoformat(), "--to", yesterday)
    message = assert_error(
        run(cli, console_url, token, "usage", "query", *reversed_range), 1, "RangeOutOfOrder"
    )
    assert "must be before to" in message and yesterday in message
    too_early = run(cli, console_url, token, "usage", "query", "--from", "2020-01-01", "--csv")
    assert "billing cycles kept" in assert_error(too_early, 1, "OutsideRetention")
    unknown = run(cli, console_url, token, "usage", "query", "--group-by", "label:team")
    assert "suite" in assert_error(unknown, 1, "UnknownLabel")
    # GET /web/account (usage cycles) needs account:read, which this token does not hold.
    assert_error(run(cli, console_url, token, "usage", "cycles"), 3, "MissingScope")


def test_the_audit_log_over_a_range_as_csv(cli: Path, console_url: str, owner: Owner) -> None:
    since = datetime.now(UTC)
    invitee = f"ivy-{secrets.token_hex(3)}@cli-labs.dev"
    for args in (
        ("users", "invite", invitee, "--first-name", "Ivy", "--last-name", "Ink"),
        ("users", "set-role", invitee, "member"),
        ("users", "remove", invitee),
    ):
        assert run(cli, console_url, owner.token, *args).status == 0, args

    exported = run(
        cli, console_url, owner.token, "audit", "list", "--from", since.isoformat(), "--csv"
    )
    assert exported.status == 0, exported
    events = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert [(e["action"], e["actor_email"]) for e in events] == [
        ("user.deleted", owner.email),
        ("user.role_changed", owner.email),
        ("user.invited", owner.email),
    ]
    assert all(invitee in event["target_label"] for event in events)

    # The same range as a table, and one action of it as JSON.
    listed = run(cli, console_url, owner.token, "audit", "list", "--from", since.isoformat())
    assert [line.split()[4] for line in listed.stdout.splitlines()[1:]] == [
        "user.deleted",
        "user.role_changed",
        "user.invited",
    ]
    invited = run(
        cli,
        console_url,
        owner.token,
        "audit",
        "list",
        "--from",
        since.isoformat(),
        "--action",
        "user.invited",
        "--json",
    ).json()
    assert [event["action"] for event in invited] == ["user.invited"]
    before = run(
        cli, console_url, owner.token, "audit", "list", "--to", since.isoformat(), "--json"
    ).json()
    assert before and all(datetime.fromisoformat(e["occurredAt"]) < since for e in before)


def test_typed_errors_are_one_line_with_an_exit_status(
    cli: Path, console_url: str, owner: Owner
) -> None:
    # 403: a Member may not invite (the documented Error_Forbidden).
    member = f"max-{secrets.token_hex(3)}@cli-labs.dev"
    invited = run(
        cli,
        console_url,
        owner.token,
        "users",
        "invite",
        member,
        "--first-name",
        "Max",
        "--last-name",
        "Member",
        "--role",
        "Member",
    )
    assert invited.status == 0, invited
    member_token = _first_sign_in(console_url, member)
    refused = run(
        cli,
        console_url,
        member_token,
        "users",
        "invite",
        "z@cli-labs.dev",
        "--first-name",
        "Z",
        "--last-name",
        "Z",
    )
    assert "Owner or an Admin" in assert_error(refused, 3, "Forbidden")
    assert_error(run(cli, console_url, member_token, "audit", "list", "--csv"), 3, "Forbidden")

    # 401: a token the console does not take.
    assert_error(run(cli, console_url, "not-a-token", "keys", "list"), 3, "NotAuthenticated")
    # 422: a value the console finds invalid, with the field it names.
    invalid = run(
        cli,
        console_url,
        owner.token,
        "users",
        "invite",
        "not-an-email",
        "--first-name",
        "N",
        "--last-name",
        "E",
    )
    assert "email" in assert_error(invalid, 2, "ValidationError")
    # 400: a change the console refuses.
    assert_error(
        run(cli, console_url, owner.token, "users", "remove", owner.email), 1, "CannotDeleteSelf"
    )
    # Configuration: none, or a console that does not answer.
    assert "CONSOLE_URL" in assert_error(
        run(cli, None, owner.token, "keys", "list"), 2, "MissingUrl"
    )
    assert "CONSOLE_TOKEN" in assert_error(
        run(cli, console_url, None, "keys", "list"), 2, "MissingToken"
    )
    unreachable = run(cli, "http://127.0.0.1:9", owner.token, "keys", "list")
    assert_error(unreachable, 5, "ConnectionFailed")
    # The command line itself: click's usage error, exit status 2.
    wrong = run(cli, console_url, owner.token, "keys", "roll", "--overlap", "2h")
    assert wrong.status == 2 and "Invalid value for '--overlap'" in wrong.stderr, wrong


def test_the_cli_type_checks_against_the_client_of_todays_contract(
    background: Background,
) -> None:
    """mypy --strict (``[tool.mypy]`` of cli/pyproject.toml) on a copy of console_cli with the
    client generated from openapi.json as its build does: a change of the contract that breaks
    a command fails here, naming the line."""
    assert "Success: no issues found" in background.type_check.wait()


def _mail(console_url: str, to: str, field: str = "code") -> dict[str, str]:
    """The newest email of the dev mailbox to ``to`` that has ``field``."""
    messages = httpx.get(f"{console_url}/dev/mailbox", params={"to": to}).json()
    found = [message for message in messages if message.get(field)]
    assert found, f"no mail to {to} with {field}"
    return found[0]  # type: ignore[no-any-return]


def _sign_in(console_url: str, email: str, password: str) -> str:
    signed_in = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": email, "password": password}
    )
    assert signed_in.status_code == 200, signed_in.text
    return str(signed_in.json()["tokens"]["accessToken"])


def _first_sign_in(console_url: str, email: str) -> str:
    """An invitee's first sign-in with the emailed temporary password, choosing their own;
    returns their access token."""
    temporary = _mail(console_url, email, "temporaryPassword")["temporaryPassword"]
    challenge = httpx.post(
        f"{console_url}/web/session/sign-in", json={"email": email, "password": temporary}
    ).json()["challenge"]
    done = httpx.post(
        f"{console_url}/web/session/complete-new-password",
        json={"username": email, "session": challenge["session"], "newPassword": MEMBER_PASSWORD},
    )
    assert done.status_code == 200, done.text
    return str(done.json()["tokens"]["accessToken"])


def _start(log: Path, command: list[Any]) -> Started:
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(part) for part in command], stdout=out, stderr=subprocess.STDOUT
        )
    return Started(process, log)


def _shell(command: list[Any]) -> str:
    return shlex.join(str(part) for part in command)


def test_an_access_token_drives_the_cli_and_the_owner_lists_and_revokes_it(
    cli: Path, console_url: str, owner: Owner
) -> None:
    tomorrow = (datetime.now(UTC) + timedelta(days=7)).date().isoformat()
    created = httpx.post(
        f"{console_url}/web/access-tokens",
        headers={"Authorization": f"Bearer {owner.token}"},
        json={
            "name": "CLI run",
            "expiresOn": tomorrow,
            "scopes": ["account:read", "api_keys:read"],
        },
    )
    assert created.status_code == 201, created.text
    secret, token_id = created.json()["secret"], created.json()["token"]["id"]

    # The script's own token: what its scopes allow works, the rest is a typed refusal.
    listed = run(cli, console_url, secret, "users", "list", "--json")
    assert listed.status == 0, listed
    assert owner.email in listed.stdout
    assert_error(
        run(cli, console_url, secret, "keys", "roll", "--overlap", "1h"), 3, "MissingScope"
    )

    # The Owner's own sign-in sees it used, then revokes it; the script stops at once.
    tokens = run(cli, console_url, owner.token, "tokens", "list", "--json").json()["tokens"]
    (mine,) = [t for t in tokens if t["id"] == token_id]
    assert mine["lastUsedAt"] is not None and mine["scopes"] == ["account:read", "api_keys:read"]
    assert run(cli, console_url, owner.token, "tokens", "revoke", token_id).status == 0
    assert_error(run(cli, console_url, secret, "users", "list"), 3, "AccessTokenRevoked")
