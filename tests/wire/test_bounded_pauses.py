"""Every pause is bounded: a pause the service names counts up to ``MAX_SERVICE_PAUSE`` whatever it says
(an hour, "inf", a date years ahead), and a call waits only within what it has left (its retry budget, its
deadline ``within``): one whose time ends before the account's pause is refused at once, unsent, instead of
sleeping its whole budget and going out anyway.

Observed before: one poll answered 429 APIG.0308 with Retry-After 3600 made three jobs with a 20 s wait end
after two minutes. Against tests/httpserver.py on a fake clock (the pauses are the clock's, not real ones).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

import pytest

from pulumi_modelarts.wire.api_errors import MAX_SERVICE_PAUSE, ThrottledError
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.errors import TransportError
from pulumi_modelarts.wire.interpreting import retry_after_seconds
from pulumi_modelarts.wire.throttling import ThrottleGate

from ..httpserver import Reply, ScriptedServer, json_reply
from ..support import FakeTime
from .scripted_service import error_body, job


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def client_defaults(fake_time: FakeTime) -> dict[str, Any]:
    """make_client's (tests/wire/conftest.py): four attempts on a fake clock, the default retry budget."""
    return {
        "auth": AkSkAuth("AKPAUSES", "SkPausesSecret0123"),
        "max_attempts": 4,
        "sleep": fake_time.sleep,
        "clock": fake_time.clock,
        "rng": lambda: 0.5,
    }


def throttled(retry_after: str) -> Reply:
    return json_reply(error_body("APIG.0308", "throttled"), status=429, Retry_After=retry_after)


@pytest.mark.parametrize("named", ["3600", "1e308", "inf", "Infinity"])
def test_a_pause_the_service_names_counts_up_to_the_most_honoured(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime, named: str
) -> None:
    server.queue(throttled(named), json_reply(job("j-1")))
    assert make_client().get_job("j-1").metadata.id == "j-1"  # within the default 120 s budget, retried
    assert fake_time.sleeps == [MAX_SERVICE_PAUSE] and MAX_SERVICE_PAUSE == 60.0
    assert len(server.requests) == 2


@pytest.mark.parametrize("named", ["nan", "-5", "Fri, 32 Dec 9999 25:59:59 GMT", "soon"])
def test_a_pause_no_one_could_mean_is_the_clients_own_back_off(named: str) -> None:
    assert retry_after_seconds(named) is None
    assert retry_after_seconds("7") == 7.0 and retry_after_seconds("7200") == MAX_SERVICE_PAUSE


def test_a_pause_named_as_a_date_counts_from_now_up_to_the_most_honoured() -> None:
    now = datetime(2026, 11, 28, 12, 0, 0, tzinfo=timezone.utc).timestamp()
    clock = lambda: now  # noqa: E731
    assert retry_after_seconds("Sat, 28 Nov 2026 12:00:09 GMT", clock) == 9.0
    assert retry_after_seconds("Fri, 31 Dec 9999 23:59:59 GMT", clock) == MAX_SERVICE_PAUSE
    assert retry_after_seconds("Sat, 28 Nov 2026 11:00:00 GMT", clock) == 0.0  # passed: no pause left


def test_the_gate_cuts_a_named_pause_it_is_told_of() -> None:
    t = FakeTime(start=10.0)
    gate = ThrottleGate(t.clock, t.sleep)
    refusal = ThrottledError(429, "APIG.0308", "throttled", operation="get", retry_after=3600.0)
    assert gate.refused(refusal, delay=3600.0) == pytest.approx(10.0 + MAX_SERVICE_PAUSE)
    assert gate.paused_for() == pytest.approx(MAX_SERVICE_PAUSE)


def test_a_call_whose_budget_ends_before_the_accounts_pause_is_not_sent(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime
) -> None:
    server.queue(throttled("30"))
    server.handler = lambda _r: json_reply(job("j-1"))
    client = make_client(max_attempts=1)
    with pytest.raises(ThrottledError):
        client.get_job("j-1")  # refused, and the account's calls paused for 30 s
    client.transport.max_retry_seconds = 10.0
    with pytest.raises(ThrottledError) as caught:
        client.get_job("j-1")
    assert "paused for 30s more" in str(caught.value) and "it was not sent" in str(caught.value)
    assert fake_time.sleeps == []  # not its whole budget first
    assert len(server.requests) == 1  # and never sent during the pause


def test_three_waits_of_twenty_seconds_end_on_time_whatever_the_pause(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime
) -> None:
    """The observed case: three jobs' polls, each within its wait's 20 s, one answered Retry-After 3600."""
    server.queue(throttled("3600"))
    server.handler = lambda _r: json_reply(job("j-1"))
    client = make_client()
    started = fake_time.now
    for _ in range(3):
        with client.transport.within(20.0), pytest.raises(ThrottledError):
            client.get_job("j-1")
    assert fake_time.now - started <= 20.0  # none slept the pause (60 s) nor its budget (120 s)
    assert len(server.requests) == 1


def test_a_deadline_bounds_each_attempts_timeout(server: ScriptedServer, make_client: Any) -> None:
    server.handler = lambda _r: Reply(delay=3.0, body=job("j-1"))
    client = make_client(sleep=time.sleep, clock=time.monotonic, timeout=10.0, max_attempts=1)
    started = time.monotonic()
    with client.transport.within(0.3), pytest.raises(TransportError, match="timed out"):
        client.get_job("j-1")
    assert time.monotonic() - started < 2.0  # the deadline's 0.3 s, not the client's 10 s timeout
    with client.transport.within(0.0), pytest.raises(TransportError, match="ran out before it was sent"):
        client.get_job("j-1")
    assert len(server.requests) == 1
