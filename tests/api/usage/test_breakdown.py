"""Labels on metering records and the usage breakdown by API key and by label (README "Metering
intake", "Usage alerts and export"): the labels' rules, the rollups the intake keeps of them (and
of each key), and ``GET /web/usage/breakdown``, which reads only those rollups."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import delete, func, select

from api.models import ApiKeyUsage, UsageLabel, UsageRecord
from tests.api.conftest import MakeUser, SignedIn
from tests.api.usage.test_metering import URL, key_headers, record

BREAKDOWN = "/web/usage/breakdown"


def labelled(credits: int, **labels: str) -> dict[str, Any]:
    return record(credits=credits) | {"labels": labels}


async def current_cycle_ms(client: httpx.AsyncClient, me: SignedIn) -> int:
    response = await client.get("/web/account", headers=me.headers)
    start: int = response.json()["account"]["usage"][-1]["startMs"]
    return start


async def breakdown(
    client: httpx.AsyncClient, me: SignedIn, label: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"cycleStartMs": await current_cycle_ms(client, me)}
    if label:
        params["label"] = label
    response = await client.get(BREAKDOWN, params=params, headers=me.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def send(client: httpx.AsyncClient, key: str, records: list[dict[str, Any]]) -> None:
    response = await client.post(URL, headers={"X-API-Key": key}, json={"records": records})
    assert response.status_code == 200, response.text


class TestLabelRules:
    async def test_up_to_five_labels_of_the_documented_form(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        five = {f"l{i}": "v" for i in range(5)}
        good = [
            labelled(1, project="checkout-suite", ci="github-actions", branch="main"),
            record() | {"labels": five},
            record() | {"labels": {"a" + "b" * 31: "x" * 100}},
            record() | {"labels": {}},
            record(),  # unlabelled records stay valid
            record() | {"labels": {"suite": "Ünïcode & spaces = fine"}},
        ]
        response = await client.post(URL, headers=key_headers(me), json={"records": good})
        assert response.json() == {"accepted": len(good), "duplicates": 0}
        cases = [
            ({**five, "l5": "v"}, "Dictionary should have at most 5 items"),
            ({"Project": "x"}, "label names are 1 to 32 lowercase letters, digits or underscores"),
            ({"1st": "x"}, "label names are 1 to 32"),
            ({"a" * 33: "x"}, "label names are 1 to 32"),
            ({"a-b": "x"}, "label names are 1 to 32"),
            ({"project\n": "x"}, "label names are 1 to 32"),
            ({"project": ""}, "String should have at least 1 character"),
            ({"project": "   "}, "label values must not be blank"),
            ({"project": "x" * 101}, "String should have at most 100 characters"),
            ({"project": "tab\there"}, "Must not contain control characters"),
            ({"project": 7}, "Input should be a valid string"),
            (["project"], "Input should be a valid dictionary"),
            (None, "Input should be a valid dictionary"),
        ]
        for labels, message in cases:
            bad = {"records": [record(credits=5), record() | {"labels": labels}]}
            response = await client.post(URL, headers=key_headers(me), json=bad)
            assert response.status_code == 422, labels
            body = response.json()
            assert body["code"] == "ValidationError"
            assert body["message"].startswith(message), (labels, body)
            assert body["fields"][0]["field"].startswith("records.1.labels"), body
        # Nothing of a refused batch was counted.
        assert (await breakdown(client, me))["requests"] == sum(r["credits"] for r in good)

    def test_the_rules_are_in_the_contract(self, app: FastAPI) -> None:
        schema = app.openapi()["components"]["schemas"]["UsageRecordCreate"]["properties"]
        labels = schema["labels"]
        assert labels["maxProperties"] == 5
        assert labels["propertyNames"] == {"pattern": "^[a-z][a-z0-9_]{0,31}$(?!\\n)"}
        assert labels["additionalProperties"]["minLength"] == 1
        assert labels["additionalProperties"]["maxLength"] == 100


class TestRollups:
    async def test_labels_and_keys_are_stored_with_the_records_and_rolled_up_once(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        batch = [
            labelled(4, project="checkout", ci="github"),
            labelled(6, project="checkout"),
            labelled(5, project="search", ci="gitlab"),
            record(credits=2),
        ]
        await send(client, me.api_key, batch)
        # A retried batch, even with other labels, is a duplicate: the first labels count.
        retried = [r | {"labels": {"project": "other"}} for r in batch]
        again = await client.post(URL, headers=key_headers(me), json={"records": retried})
        assert again.json() == {"accepted": 0, "duplicates": 4}
        async with app.state.resources.sessionmaker() as db:
            rows = await db.execute(
                select(UsageLabel.label_key, UsageLabel.label_value, UsageLabel.credits)
                .where(UsageLabel.account_id == me.account.id)
                .order_by(UsageLabel.label_key, UsageLabel.label_value)
            )
            assert rows.all() == [
                ("ci", "github", 4),
                ("ci", "gitlab", 5),
                ("project", "checkout", 10),
                ("project", "search", 5),
            ]
            stored = (
                await db.execute(
                    select(UsageRecord.labels, UsageRecord.api_key_id)
                    .where(UsageRecord.account_id == me.account.id)
                    .order_by(UsageRecord.credits)
                )
            ).all()
            by_key = await db.scalar(
                select(ApiKeyUsage.credits)
                .join(UsageRecord, UsageRecord.api_key_id == ApiKeyUsage.key_id)
                .where(UsageRecord.account_id == me.account.id)
                .limit(1)
            )
        assert [labels for labels, _ in stored] == [
            None,
            {"project": "checkout", "ci": "github"},
            {"project": "search", "ci": "gitlab"},
            {"project": "checkout"},
        ]
        assert len({key for _, key in stored}) == 1 and stored[0][1] is not None
        assert by_key == 17

    async def test_the_breakdown_reads_the_rollups_not_the_records(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, [labelled(3, project="checkout"), record(credits=1)])
        async with app.state.resources.sessionmaker() as db, db.begin():
            await db.execute(delete(UsageRecord).where(UsageRecord.account_id == me.account.id))
        body = await breakdown(client, me, "project")
        assert body["requests"] == 4
        assert body["byLabel"] == [{"value": "checkout", "requests": 3, "share": 0.75}]
        assert body["unlabelled"] == {"requests": 1, "share": 0.25}


class TestBreakdown:
    async def test_by_key_across_a_roll(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, [record(credits=30)])
        rolled = await client.post("/web/api-keys/roll", json={"overlap": "1h"}, headers=me.headers)
        new = rolled.json()["keys"][0]
        key = await client.post(
            f"/web/api-keys/{new['id']}/reveal", json={"purpose": "copy"}, headers=me.headers
        )
        await send(client, key.json()["key"], [record(credits=50), record(credits=20)])
        body = await breakdown(client, me)
        assert body["requests"] == 100
        assert [(k["masked"], k["requests"], k["share"], k["expired"]) for k in body["byKey"]] == [
            (new["masked"], 70, 0.7, False),
            (rolled.json()["keys"][1]["masked"], 30, 0.3, False),
        ]
        assert body["unknownKey"] == {"requests": 0, "share": 0.0}

    async def test_top_ten_values_then_other_then_unlabelled(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        # Values v00..v11 with 12..1 requests, unlabelled 22, another label on some.
        batch = [labelled(12 - i, suite=f"v{i:02}") for i in range(12)]
        batch += [record(credits=22), labelled(5, ci="github")]
        await send(client, me.api_key, batch)
        body = await breakdown(client, me, "suite")
        total = sum(range(1, 13)) + 22 + 5
        assert body["requests"] == total == 105
        assert body["labels"] == ["ci", "suite"]
        assert body["label"] == "suite"
        assert [(v["value"], v["requests"]) for v in body["byLabel"]] == [
            (f"v{i:02}", 12 - i) for i in range(10)
        ]
        assert body["byLabel"][0]["share"] == pytest.approx(12 / 105)
        assert body["otherValues"] == {"requests": 3, "share": pytest.approx(3 / 105)}
        assert body["unlabelled"] == {"requests": 27, "share": pytest.approx(27 / 105)}
        named = sum(v["requests"] for v in body["byLabel"])
        assert named + body["otherValues"]["requests"] + body["unlabelled"]["requests"] == total
        # Ties are ordered by value; a label nobody used leaves everything unlabelled.
        none = await breakdown(client, me, "nobody")
        assert none["byLabel"] == [] and none["unlabelled"]["requests"] == total

    async def test_an_empty_cycle_has_no_shares(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        body = await breakdown(client, me, "project")
        assert body == {
            "cycleStartMs": body["cycleStartMs"],
            "requests": 0,
            "byKey": [],
            "unknownKey": {"requests": 0, "share": 0.0},
            "labels": [],
            "label": "project",
            "byLabel": [],
            "otherValues": {"requests": 0, "share": 0.0},
            "unlabelled": {"requests": 0, "share": 0.0},
        }

    async def test_records_without_a_key_show_as_unknown(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, [record(credits=6), record(credits=4)])
        # As for usage metered before keys were recorded: the key's rollup lacks them.
        async with app.state.resources.sessionmaker() as db, db.begin():
            key_ids = select(UsageRecord.api_key_id).where(UsageRecord.account_id == me.account.id)
            await db.execute(delete(ApiKeyUsage).where(ApiKeyUsage.key_id.in_(key_ids)))
        body = await breakdown(client, me)
        assert body["byKey"] == []
        assert body["unknownKey"] == {"requests": 10, "share": 1.0}

    async def test_scoped_to_the_callers_account_and_cycles(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        other = await make_user(account_name="Other")
        await send(client, other.api_key, [labelled(9, project="secret")])
        start = await current_cycle_ms(client, me)
        body = await breakdown(client, me, "project")
        assert body["requests"] == 0 and body["labels"] == [] and body["byKey"] == []
        # Another account's cycle start (a different anchor) is not one of mine: 404.
        theirs = await current_cycle_ms(client, other)
        if theirs != start:
            response = await client.get(
                BREAKDOWN, params={"cycleStartMs": theirs}, headers=me.headers
            )
            assert response.status_code == 404
        response = await client.get(
            BREAKDOWN, params={"cycleStartMs": start + 1}, headers=me.headers
        )
        assert response.status_code == 404
        assert response.json()["code"] == "NotFound"
        async with app.state.resources.sessionmaker() as db:
            count = await db.scalar(
                select(func.count())
                .select_from(UsageLabel)
                .where(UsageLabel.account_id == other.account.id)
            )
        assert count == 1

    async def test_a_label_name_is_checked_and_sign_in_is_needed(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        start = await current_cycle_ms(client, me)
        bad = await client.get(
            BREAKDOWN, params={"cycleStartMs": start, "label": "Bad Name"}, headers=me.headers
        )
        assert bad.status_code == 422
        assert bad.json()["message"].startswith("label names are 1 to 32")
        anonymous = await client.get(BREAKDOWN, params={"cycleStartMs": start})
        assert anonymous.status_code == 401


class TestExportColumns:
    async def test_requests_per_key_and_label_value_add_up_on_every_row(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        odd = 'a "quoted", =SUM(A1)'
        await send(
            client,
            me.api_key,
            [
                labelled(4, project="checkout"),
                labelled(3, project=odd),
                record("api", credits=2),
            ],
        )
        rolled = await client.post("/web/api-keys/roll", json={"overlap": "1h"}, headers=me.headers)
        new = rolled.json()["keys"][0]
        key = await client.post(
            f"/web/api-keys/{new['id']}/reveal", json={"purpose": "copy"}, headers=me.headers
        )
        await send(client, key.json()["key"], [labelled(10, project="search"), record(credits=1)])
        start = await current_cycle_ms(client, me)
        response = await client.get(
            "/web/usage/export",
            params={"cycleStartMs": start, "label": "project"},
            headers=me.headers,
        )
        assert response.status_code == 200
        table = list(csv.reader(io.StringIO(response.text)))
        old = rolled.json()["keys"][1]["masked"]
        assert table[0] == [
            "date",
            "platform",
            "runs",
            "credits",
            f"key {new['masked']}",
            f"key {old}",
            "project=search",
            "project=checkout",
            f"project={odd}",
            "project (other values)",
            "project (none)",
        ]
        assert f'"project={odd.replace(chr(34), chr(34) * 2)}"' in response.text.splitlines()[0]
        today = {row[1]: [int(c) for c in row[2:]] for row in table[1:] if row[0] == table[-1][0]}
        assert today["web"] == [4, 18, 11, 7, 10, 4, 3, 0, 1]
        assert today["api"] == [1, 2, 0, 2, 0, 0, 0, 0, 2]
        assert today["nativeMobile"] == [0] * 9
        for row in table[1:]:
            credits, keys, labels = int(row[3]), row[4:6], row[6:]
            assert sum(map(int, keys)) == credits
            assert sum(map(int, labels)) == credits
        # Without labels: the key columns only.
        plain = await client.get(
            "/web/usage/export", params={"cycleStartMs": start}, headers=me.headers
        )
        assert plain.text.splitlines()[0].startswith(
            f"date,platform,runs,credits,key {new['masked']},key {old},project="
        )

    async def test_left_out_the_label_is_the_first_of_the_cycle(
        self, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(client, me.api_key, [labelled(2, suite="a", ci="x"), record(credits=1)])
        body = await breakdown(client, me)
        assert (body["labels"], body["label"]) == (["ci", "suite"], "ci")
        assert body["byLabel"] == [{"value": "x", "requests": 2, "share": 2 / 3}]
        assert body["unlabelled"] == {"requests": 1, "share": 1 / 3}


class TestLabelValueCap:
    """A label holds at most 1,000 values per billing cycle; a record carrying a new value past
    that is still counted, its requests in the label's 'Other values' (README "Metering
    intake")."""

    CAP = 1000

    async def test_values_past_the_cap_are_counted_as_other_values(
        self, app: FastAPI, client: httpx.AsyncClient, make_user: MakeUser
    ) -> None:
        me = await make_user()
        await send(
            client, me.api_key, [labelled(1, suite=f"s{i:04d}") for i in range(self.CAP - 2)]
        )
        # Two places left: the batch's new values take them in order, the third is past it.
        await send(
            client,
            me.api_key,
            [
                labelled(5, suite="s0000"),
                labelled(2, suite="zz-new-a"),
                labelled(3, suite="zz-new-b"),
                labelled(7, suite="zz-new-c"),
            ],
        )
        # At the cap: a known value still counts as itself, a new one as other values; another
        # label of the same cycle has its own places.
        await send(
            client,
            me.api_key,
            [
                labelled(11, suite="another-new"),
                labelled(1, suite="s0500"),
                labelled(4, branch="main"),
            ],
        )
        async with app.state.resources.sessionmaker() as db:
            rows = await db.execute(
                select(UsageLabel.label_key, UsageLabel.label_value, UsageLabel.credits).where(
                    UsageLabel.account_id == me.account.id
                )
            )
            stored = {(k, v): c for k, v, c in rows}
        suite = {v: c for (k, v), c in stored.items() if k == "suite"}
        assert len(suite) == self.CAP + 1  # the 1,000 values and the one row past the cap
        assert "zz-new-c" not in suite and "another-new" not in suite
        assert suite["zz-new-a"] == 2 and suite["zz-new-b"] == 3
        assert (suite["s0000"], suite["s0500"]) == (6, 2)
        assert stored[("branch", "main")] == 4

        labelled_total = (self.CAP - 2) + 5 + 2 + 3 + 7 + 11 + 1
        body = await breakdown(client, me, "suite")
        assert body["requests"] == labelled_total + 4
        values = [v["value"] for v in body["byLabel"]]
        # The 18 requests past the cap are the most of any row, yet no value is named for them.
        assert values[:4] == ["s0000", "zz-new-b", "s0500", "zz-new-a"]
        assert len(values) == 10 and all(v.startswith(("s", "zz-new-")) for v in values)
        named = sum(v["requests"] for v in body["byLabel"])
        assert body["otherValues"]["requests"] == labelled_total - named
        assert body["unlabelled"]["requests"] == 4

        start = await current_cycle_ms(client, me)
        exported = await client.get(
            "/web/usage/export",
            params={"cycleStartMs": start, "label": "suite"},
            headers=me.headers,
        )
        table = list(csv.DictReader(io.StringIO(exported.text)))
        assert (
            sum(int(row["suite (other values)"]) for row in table)
            == (body["otherValues"]["requests"])
        )
        assert sum(int(row["suite (none)"]) for row in table) == 4

    def test_the_cap_is_in_the_contract(self, app: FastAPI) -> None:
        schema = app.openapi()["components"]["schemas"]["UsageRecordCreate"]["properties"]
        assert "1,000 values per label and billing cycle" in schema["labels"]["description"]
        shown = app.openapi()["components"]["schemas"]["UsageBreakdown"]
        assert "1,000" in shown["properties"]["otherValues"]["description"]
