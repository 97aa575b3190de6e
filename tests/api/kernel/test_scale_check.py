"""What ``make scale-check`` counts as a broken promise (bench/scale.py, README "Running
replicas"): a cut by the SIGKILL may be repeated once; anything else fails the check."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest

from bench.scale import CUT_ERRORS, Attempt, Tally, alert_verdict, judge, metering_verdict

KILL = (10.0, 10.01)  # the SIGKILL was sent between these monotonic seconds


def ok(started: float, ended: float) -> Attempt:
    return Attempt(started, ended, ok=True, cut=False, detail="200 {}")


def cut(started: float, ended: float) -> Attempt:
    return Attempt(started, ended, ok=False, cut=True, detail="RemoteProtocolError(...)")


def wrong(started: float, ended: float) -> Attempt:
    return Attempt(started, ended, ok=False, cut=False, detail="502 Bad Gateway")


def test_an_answered_request_keeps_the_promise() -> None:
    assert judge([ok(1.0, 1.1)], KILL) is None
    assert judge([ok(1.0, 1.1)], None) is None


def test_a_request_in_flight_at_the_sigkill_may_be_cut_once_and_repeated() -> None:
    assert judge([cut(9.9, 10.2), ok(10.2, 10.3)], KILL) is None


def test_a_request_cut_twice_fails() -> None:
    why = judge([cut(9.9, 10.2), cut(10.2, 10.3)], KILL)
    assert why is not None and why.startswith("cut twice")


def test_a_repeat_that_gets_a_wrong_answer_fails() -> None:
    assert judge([cut(9.9, 10.2), wrong(10.2, 10.3)], KILL) == "502 Bad Gateway"


def test_a_wrong_answer_is_a_failure_without_a_repeat() -> None:
    assert judge([wrong(1.0, 1.1)], KILL) == "502 Bad Gateway"
    why = judge([wrong(9.9, 10.2), ok(10.2, 10.3)], KILL)
    assert why is not None and why.startswith("repeated after an answer that was not a cut")


def test_a_cut_while_no_replica_is_killed_fails() -> None:
    # Sent after the SIGKILL, or answered before it: the SIGTERM's drain, or a defect.
    for attempt in (cut(10.5, 10.6), cut(9.0, 9.5)):
        why = judge([attempt, ok(11.0, 11.1)], KILL)
        assert why is not None and why.startswith("cut while no replica was being killed")
    why = judge([cut(9.9, 10.2), ok(10.2, 10.3)], None)
    assert why is not None and why.startswith("cut while no replica was being killed")


def test_more_than_one_repeat_fails() -> None:
    assert judge([cut(9.9, 10.2), cut(9.95, 10.2), ok(10.2, 10.3)], KILL) is not None
    assert judge([], KILL) == "never sent"


def test_the_tally_lists_only_the_requests_that_broke_the_promise() -> None:
    tally = Tally()
    tally.requests = [
        ("session", [ok(1.0, 1.1)]),
        ("account", [cut(9.9, 10.2), ok(10.2, 10.3)]),
        ("metering", [cut(9.9, 10.2), cut(10.2, 10.3)]),
        ("sign-in", [cut(20.0, 20.1), ok(20.1, 20.2)]),
    ]
    failures = tally.failures(KILL)
    assert [f.split(":")[0] for f in failures] == ["metering", "sign-in"]
    assert tally.repeated() == Counter({"account": 1, "metering": 1, "sign-in": 1})


def test_metering_equal_to_what_was_confirmed_passes() -> None:
    confirmed = {"a": 3, "b": 5}
    assert metering_verdict(confirmed, set(), Counter({"a": 1, "b": 1}), 8) is None


def test_a_lost_record_fails_metering() -> None:
    why = metering_verdict({"a": 3, "b": 5}, set(), Counter({"a": 1}), 3)
    assert why is not None and "1 confirmed records missing" in why


def test_a_record_counted_twice_fails_metering() -> None:
    # Stored twice, or stored once with its credits added to the rollups twice.
    why = metering_verdict({"a": 3}, set(), Counter({"a": 2}), 3)
    assert why is not None and "stored more than once" in why
    why = metering_verdict({"a": 3}, set(), Counter({"a": 1}), 6)
    assert why is not None and "rollups hold 6 credits, 3 were confirmed" in why


def test_a_record_no_answer_confirmed_fails_metering() -> None:
    why = metering_verdict({"a": 3}, {"b"}, Counter({"a": 1, "b": 1}), 7)
    assert why is not None
    assert "1 records stored that no answer confirmed (1 of batches whose answer never came)" in why


async def _answer_cut_after_header() -> BaseException:
    """What httpx raises when the server dies after the status line and part of the body."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"sub')
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient() as client, server:
            with pytest.raises(httpx.HTTPError) as caught:
                await client.get(f"http://127.0.0.1:{port}/web/session")
    finally:
        server.close()
    return caught.value


def test_an_answer_cut_after_its_header_counts_as_a_cut() -> None:
    # The error the check saw when a SIGKILLed replica's answer was passed on by nginx.
    error = asyncio.run(_answer_cut_after_header())
    assert isinstance(error, CUT_ERRORS)
    assert "peer closed connection without sending complete message body" in str(error)


class TestAlertVerdict:
    def test_each_alert_once_passes(self) -> None:
        assert alert_verdict({"<a@x>", "<b@x>"}, Counter({"<a@x>": 1, "<b@x>": 1}), set()) is None

    def test_a_copy_of_an_email_the_killed_worker_was_sending_passes(self) -> None:
        delivered = Counter({"<a@x>": 2, "<b@x>": 1})
        assert alert_verdict({"<a@x>", "<b@x>"}, delivered, {"<a@x>"}) is None

    def test_a_lost_an_unexplained_copy_or_a_stranger_fails(self) -> None:
        expected = {"<a@x>", "<b@x>"}
        assert "never arrived" in (alert_verdict(expected, Counter({"<a@x>": 1}), set()) or "")
        twice = alert_verdict(expected, Counter({"<a@x>": 2, "<b@x>": 1}), {"<b@x>"})
        assert "twice with no kill" in (twice or "")
        thrice = alert_verdict(expected, Counter({"<a@x>": 3, "<b@x>": 1}), {"<a@x>"})
        assert "more than twice" in (thrice or "")
        stranger = Counter({"<a@x>": 1, "<b@x>": 1, "<c@x>": 1})
        assert "no crossing called for" in (alert_verdict(expected, stranger, set()) or "")
