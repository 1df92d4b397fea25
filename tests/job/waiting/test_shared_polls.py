"""Waiting jobs share their polls (one search reads up to ten), and a throttled answer slows every call of the
process (one back-off for all): each job still gets its own answer."""

from __future__ import annotations

import concurrent.futures
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess, start_emulator
from pulumi_modelarts.job import core
from pulumi_modelarts.job.errors import JobVanished, ProvisioningError
from pulumi_modelarts.job.waiting.polling import Condition, until
from pulumi_modelarts.job.waiting.shared_polls import (
    CLAIM_GRACE_SECONDS,
    PACED_POLL_SHARE,
    PollGroup,
    group_for,
)
from pulumi_modelarts.wire.api import MAX_IDS_PER_SEARCH, ModelArtsAPI
from pulumi_modelarts.wire.api_errors import (
    MODELARTS_THROTTLED_MIN_PAUSE,
    NotFoundError,
    SearchRejectedError,
    ThrottledError,
)
from pulumi_modelarts.wire.models import TrainingJob
from pulumi_modelarts.wire.throttling import (
    FORGET_SECONDS,
    GROWTH_PER_SECOND,
    SLOWDOWN,
    ThrottleGate,
    shared_gate,
)
from pulumi_modelarts.wire.transport import Transport

from ...support import FakeTime, ProgressLines, minimal_job, poll

# ------------------------------------------------------------------------------------------------ fakes


def job(job_id: str, phase: str) -> TrainingJob:
    return TrainingJob.model_validate(
        {"metadata": {"id": job_id, "name": f"n-{job_id}"}, "status": {"phase": phase}}
    )


class Service:
    """A client as the poll group uses it: phases by id, searches and reads counted."""

    def __init__(self, phases: dict[str, str], *, listed: Callable[[str], bool] = lambda _: True) -> None:
        self.phases = phases
        self.listed = listed
        self.searches: list[list[str]] = []
        self.reads: list[str] = []
        self.refuse = False
        self.broken: Exception | None = None  # what every search raises, when set
        self.lock = threading.Lock()

    def jobs_by_id(self, ids: Sequence[str]) -> dict[str, TrainingJob]:
        with self.lock:
            self.searches.append(list(ids))
        if self.refuse:
            raise SearchRejectedError(400, "ModelArts.2789", "unsupported filter", operation="search")
        if self.broken is not None:
            raise self.broken
        return {i: job(i, self.phases[i]) for i in ids if i in self.phases and self.listed(i)}

    def get_job(self, job_id: str) -> TrainingJob:
        with self.lock:
            self.reads.append(job_id)
        if job_id not in self.phases:
            raise NotFoundError(400, "ModelArts.2775", "no such job", operation="get")
        return job(job_id, self.phases[job_id])


def running(j: TrainingJob) -> bool:
    return j.phase == "Running"


def in_threads(*calls: Callable[[], Any]) -> list[Any]:
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(call) for call in calls]
        return [f.result(timeout=10) for f in futures]


# ------------------------------------------------------------------------------------------------ the group


def test_a_job_alone_is_read_by_id_once_its_pause_is_over() -> None:
    group, service = PollGroup(), Service({"a": "Pending"})
    with group.watching("a", service, running) as step:  # type: ignore[arg-type]
        started = time.monotonic()
        found = step(0.2, None, math.inf)
    assert found is not None and found.phase == "Pending"
    assert time.monotonic() - started >= 0.2
    assert service.reads == ["a"] and service.searches == []


def test_jobs_waiting_together_are_read_by_one_search_and_the_later_ones_early() -> None:
    b_asleep = threading.Event()

    def clock() -> float:
        # b reads the clock as it goes to sleep, holding the group's lock until it sleeps: once it has, a's
        # step (which takes the lock) finds it asleep.
        if threading.current_thread().name == "b":
            b_asleep.set()
        return time.monotonic()

    group, service = PollGroup(clock=clock), Service({"a": "Pending", "b": "Creating"})
    with (
        group.watching("a", service, running) as step_a,  # type: ignore[arg-type]
        group.watching("b", service, running) as step_b,  # type: ignore[arg-type]
    ):
        started = time.monotonic()
        b_answered: list[float] = []

        def b() -> TrainingJob | None:
            found = step_b(5.0, None, math.inf)
            b_answered.append(time.monotonic() - started)
            return found

        thread = threading.Thread(target=b, name="b")
        thread.start()
        assert b_asleep.wait(5)  # b asleep, due in 5 s
        a = step_a(0.1, None, math.inf)
        thread.join(5)
    assert a is not None and a.phase == "Pending"
    assert service.searches == [["a", "b"]] and service.reads == []
    assert b_answered and b_answered[0] < 1.0  # b got its phase from a's search, long before its own poll
    assert group.searches == 1


def test_a_job_whose_wait_ends_or_that_the_search_misses_is_read_by_id() -> None:
    service = Service({"a": "Running", "b": "Pending"}, listed=lambda i: i != "b")
    group = PollGroup()
    with (
        group.watching("a", service, running) as step_a,  # type: ignore[arg-type]
        group.watching("b", service, running) as step_b,  # type: ignore[arg-type]
    ):
        got = in_threads(lambda: step_a(0.05, None, math.inf), lambda: step_b(0.3, None, math.inf))
    assert [j.phase for j in got] == ["Running", "Pending"]
    assert service.searches == [["a", "b"]]
    assert sorted(service.reads) == ["a", "b"]  # a's final document; b, which the search did not list


def test_a_vanished_job_ends_its_wait_as_before_while_the_others_go_on() -> None:
    service = Service({"a": "Pending", "b": "Pending"})
    group = PollGroup()
    first = {"a": job("a", "Creating"), "b": job("b", "Creating")}
    b_ended = threading.Event()

    def wait(job_id: str) -> str:
        with group.watching(job_id, service, running) as step:  # type: ignore[arg-type]
            try:
                found = until(
                    first[job_id], lambda: service.get_job(job_id), done=[Condition("running", running)],
                    timeout=5, delays=iter([0.05] * 1000), step=step,
                )  # fmt: skip
            except JobVanished:
                return "vanished"
            finally:
                if job_id == "b":
                    b_ended.set()
            return str(found.phase)

    def events() -> str:
        poll(lambda: len(service.searches), bool, timeout=5, what="a search for both waits")
        del service.phases["b"]  # gone from the service: not listed, and its read says 2775
        assert b_ended.wait(5)  # b's wait is over; a's goes on
        service.phases["a"] = "Running"
        return "done"

    assert in_threads(lambda: wait("a"), lambda: wait("b"), events) == ["Running", "vanished", "done"]
    assert service.searches  # they shared polls while both waited


def test_a_search_takes_at_most_ten_jobs() -> None:
    ids = [f"j{i}" for i in range(2 * MAX_IDS_PER_SEARCH + 3)]
    service, group = Service(dict.fromkeys(ids, "Pending")), PollGroup()
    with contextlib_all(group, service, ids) as steps:
        in_threads(*(lambda s=s: s(0.3, None, math.inf) for s in steps))  # type: ignore[misc]
    assert service.searches and all(len(s) <= MAX_IDS_PER_SEARCH for s in service.searches)
    assert {i for s in service.searches for i in s} | set(service.reads) == set(ids)
    assert len(service.searches) < len(ids) / 2


def test_a_refused_search_is_not_tried_again_and_every_job_reads_itself() -> None:
    service, group = Service({"a": "Pending", "b": "Pending", "c": "Pending"}), PollGroup()
    service.refuse = True
    with contextlib_all(group, service, ["a", "b", "c"]) as steps:
        in_threads(*(lambda s=s: s(0.1, None, math.inf) for s in steps))  # type: ignore[misc]
        assert not group.searchable
        before = len(service.searches)
        in_threads(*(lambda s=s: s(0.1, None, math.inf) for s in steps))  # type: ignore[misc]
    assert before == 1 and len(service.searches) == 1
    assert sorted(service.reads) == ["a", "a", "b", "b", "c", "c"]


def test_a_search_failing_with_any_exception_costs_only_its_call_and_every_job_reads_itself() -> None:
    # Not an error of this package (a parser's RecursionError, a credential source's own): the jobs it was
    # for read themselves at once, where each meets the error itself if it lasts; none waits out a claim.
    service, group = Service({"a": "Pending", "b": "Pending", "c": "Pending"}), PollGroup()
    service.broken = RecursionError("maximum recursion depth exceeded while decoding a JSON array")
    with contextlib_all(group, service, ["a", "b", "c"]) as steps:
        started = time.monotonic()
        found = in_threads(*(lambda s=s: s(0.1, None, math.inf) for s in steps))  # type: ignore[misc]
    assert [j.phase for j in found] == ["Pending"] * 3
    assert service.searches and sorted(service.reads) == ["a", "b", "c"]
    assert time.monotonic() - started < CLAIM_GRACE_SECONDS / 2


def test_a_stop_ends_a_shared_wait_without_a_poll() -> None:
    asleep = threading.Event()

    def clock() -> float:  # read as the step goes to sleep (its poll due in 30 s)
        asleep.set()
        return time.monotonic()

    service, group, stop = Service({"a": "Pending"}), PollGroup(clock=clock), threading.Event()
    with group.watching("a", service, running) as step:  # type: ignore[arg-type]
        threading.Thread(target=lambda: asleep.wait(5) and stop.set(), daemon=True).start()
        started = time.monotonic()
        assert step(30.0, stop, math.inf) is None
    assert time.monotonic() - started < 2 and service.reads == [] and service.searches == []


def test_while_the_account_is_paced_a_round_of_polls_takes_a_share_of_the_pace() -> None:
    """Every poll is a turn a create or a final read waits for: polls are spaced so that a round of searches
    for every waiting job takes PACED_POLL_SHARE of the pace."""
    gate = ThrottleGate()
    group, service = PollGroup(gate=gate), Service({i: "Pending" for i in "abcdefghijk"})
    with contextlib_all(group, service, ["a"]) as steps:
        started = time.monotonic()
        steps[0](0.01, None, math.inf)
        unpaced = time.monotonic() - started
    for _ in range(100):
        gate.answered()
    gate.refused(gateway_refusal(1.0), delay=1.0)
    pace = gate.rate()
    assert pace is not None
    with contextlib_all(group, service, list("abcdefghijk")) as steps:  # eleven waiting: two searches a round
        started = time.monotonic()
        steps[0](0.01, None, math.inf)
        paced = time.monotonic() - started
        started = time.monotonic()
        steps[0](0.01, None, 0.05)  # the wait's timeout is 0.05 s away: the pause never passes it
        bounded = time.monotonic() - started
    assert unpaced < 0.1
    assert paced >= 2 / (PACED_POLL_SHARE * pace) * 0.99
    assert bounded < 0.1 < 2 / (PACED_POLL_SHARE * pace)
    assert service.reads == ["a", "a", "a"]  # the others never slept: "a" read itself each time


class contextlib_all:
    """Every job of ids watched in group at once (a context manager giving their steps)."""

    def __init__(self, group: PollGroup, service: Service, ids: Sequence[str]) -> None:
        import contextlib

        self._stack = contextlib.ExitStack()
        self._enter = lambda: [
            self._stack.enter_context(group.watching(i, service, running))  # type: ignore[arg-type]
            for i in ids
        ]

    def __enter__(self) -> list[Any]:
        return self._enter()

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


# ------------------------------------------------------------------------------------------------ throttling


def gateway_refusal(retry_after: float | None = 1.0) -> ThrottledError:
    return ThrottledError(429, "APIG.0308", "throttled", operation="get", retry_after=retry_after)


def modelarts_refusal() -> ThrottledError:
    """ModelArts' own throttling names no pause; the client's 2 s floor stands in for it (answers.py)."""
    pause = MODELARTS_THROTTLED_MIN_PAUSE
    return ThrottledError(429, "ModelArts.2799", "busy", operation="get", retry_after=pause)


def test_a_refusal_that_names_no_pause_costs_only_its_own_call() -> None:
    """10% of calls refused at random must not idle every other call for the 2 s advice."""
    t = FakeTime(start=10.0)
    gate = ThrottleGate(t.clock, t.sleep)
    for _ in range(9):
        gate.answered()
    assert gate.refused(modelarts_refusal(), delay=2.0) is None
    assert gate.wait(budget=60) == 0 and gate.rate() is None


def test_sustained_refusals_pause_every_call_and_pace_them() -> None:
    t = FakeTime(start=10.0)
    gate = ThrottleGate(t.clock, t.sleep)
    gate.answered()
    assert gate.refused(modelarts_refusal(), delay=2.0) is None
    assert gate.refused(modelarts_refusal(), delay=2.0) is None
    assert gate.refused(modelarts_refusal(), delay=2.0) == pytest.approx(12.0)  # three of four: sustained
    assert gate.rate() == pytest.approx(1.0)  # what the account allowed: one answer in the last second
    # A call whose time ends before the pause does not wait for it, and is not sent (None).
    assert gate.wait(budget=0.5) is None and t.sleeps == []
    assert gate.wait(budget=60) == pytest.approx(2.0)


def test_a_named_pause_holds_every_call_then_the_account_allowed_rate_paces_them() -> None:
    t = FakeTime(start=10.0)
    gate = ThrottleGate(t.clock, t.sleep)
    for _ in range(20):
        gate.answered()
    resume_at = gate.refused(gateway_refusal(1.0), delay=1.0)
    assert resume_at == pytest.approx(11.0)
    pace = 20 * SLOWDOWN  # a little under the twenty answers the account gave in the last second
    assert gate.rate() == pytest.approx(pace)
    assert gate.wait(budget=60, served=resume_at) == 0  # the refused call slept its own pause already
    t.now = 10.0
    assert gate.wait(budget=60) == pytest.approx(1.0)  # everyone else: Retry-After
    waits = [gate.wait(budget=60) for _ in range(40)]
    # The account's bucket refilled during the pause: a second's calls at the pace go at once (the call above
    # took the first), then one per turn.
    assert waits[: int(pace) - 1] == [0.0] * (int(pace) - 1)
    assert all(0 < w <= 1 / pace for w in waits[25:])
    assert sum(waits) <= (1 + 40 - int(pace)) / pace  # the calls past the burst, at the pace


def test_the_pace_is_lowered_once_a_window_never_below_half_and_grows_back() -> None:
    t = FakeTime(start=10.0)
    gate = ThrottleGate(t.clock, t.sleep)
    for _ in range(20):
        gate.answered()
    gate.refused(gateway_refusal(), delay=1.0)
    for _ in range(5):  # the rest of the same burst's refusals say it once
        gate.refused(gateway_refusal(), delay=1.0)
    first = 20.0 * SLOWDOWN
    assert gate.rate() == pytest.approx(first)
    t.now += 2.0  # no answers since: the window allowed nothing, yet the pace only halves
    grown = first * (1 + 2 * GROWTH_PER_SECOND)
    assert gate.rate() == pytest.approx(grown)
    gate.refused(gateway_refusal(), delay=1.0)
    assert gate.rate() == pytest.approx(grown / 2)
    t.now += 10.0
    assert gate.rate() == pytest.approx(grown / 2 * (1 + 10 * GROWTH_PER_SECOND))  # grows without refusals
    for _ in range(30):
        gate.answered()
    gate.refused(gateway_refusal(), delay=1.0)  # refused at a pace the account seemed to allow: slower still
    assert gate.rate() == pytest.approx(grown / 2 * (1 + 10 * GROWTH_PER_SECOND) * SLOWDOWN)
    t.now += FORGET_SECONDS + 1.0
    assert gate.rate() is None  # and is forgotten


def test_the_pace_never_outlasts_a_calls_budget() -> None:
    t = FakeTime(start=10.0)
    gate = ThrottleGate(t.clock, t.sleep)
    gate.refused(gateway_refusal(1.0), delay=1.0)  # nothing answered: the slowest pace
    t.now += 1.0
    # The third call's turn comes after its time: it neither waits nor takes the turn, which the next has.
    assert [gate.wait(budget=0.25) for _ in range(3)] == [0.0, 0.0, None]
    turn = gate.wait(budget=5)
    assert turn is not None and 0.25 < turn <= 1.0  # the turn at about one call a second


def test_a_client_paces_its_calls_after_the_gateway_names_a_pause() -> None:
    """Through the transport: answers counted, a refusal with Retry-After, then calls at the allowed rate."""
    t = FakeTime(start=10.0)
    sent: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(t.now)
        if len(sent) == 11:
            body = {"error_code": "APIG.0308", "error_msg": "throttled"}
            return httpx.Response(429, json=body, headers={"Retry-After": "1"})
        return httpx.Response(200, json={"metadata": {"id": "j-1"}, "status": {"phase": "Pending"}})

    with ModelArtsAPI(Transport(
        endpoint="http://127.0.0.1:11", project_id="p-pace", auth=httpx.Auth(),
        transport=httpx.MockTransport(handler), sleep=t.sleep, clock=t.clock, rng=lambda: 0.0,
    )) as client:  # fmt: skip
        for _ in range(10 + 1 + 30):
            client.get_job("j-1")
    assert client.transport.throttle_gate.rate() is not None
    after = sent[11:]
    assert after[0] >= sent[10] + 1.0  # Retry-After honoured
    gaps = [b - a for a, b in itertools.pairwise(after[12:])]
    assert gaps and min(gaps) >= 0.08  # about ten a second: what the account allowed, not all at once


def test_one_clients_throttled_answer_slows_another_clients_next_call() -> None:
    """Two clients of one account in one process (as two waits of the plugin): the second one's call waits
    for the back-off the first one's throttled answer set, instead of being refused too."""
    sent: list[tuple[str, float]] = []
    lock = threading.Lock()
    throttled_once = threading.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        with lock:
            sent.append((request.url.path, time.monotonic()))
            if request.url.path.endswith("/j-1") and not throttled_once.is_set():
                throttled_once.set()
                body = {"error_code": "APIG.0308", "error_msg": "throttled"}
                return httpx.Response(429, json=body, headers={"Retry-After": "1"})
        job_id = request.url.path.rsplit("/", 1)[1]
        return httpx.Response(200, json={"metadata": {"id": job_id}, "status": {"phase": "Pending"}})

    endpoint = "http://127.0.0.1:9"  # never reached: the mock transport answers

    def client() -> ModelArtsAPI:
        return ModelArtsAPI(
            Transport(
                endpoint=endpoint,
                project_id="p-gate",
                auth=httpx.Auth(),
                transport=httpx.MockTransport(handler),
            )
        )

    with client() as first, client() as second:
        gate = shared_gate(first.transport.endpoint, "p-gate")
        assert first.transport.throttle_gate is second.transport.throttle_gate is gate
        throttles = gate.throttles
        worker = threading.Thread(target=first.get_job, args=("j-1",))
        worker.start()
        assert throttled_once.wait(5)
        # The second call goes once the first one's refusal is in the shared gate.
        poll(lambda: gate.throttles, lambda seen: seen > throttles, timeout=5, what="the refusal in the gate")
        second.get_job("j-2")
        worker.join(5)
    throttled_at = next(at for path, at in sent if path.endswith("/j-1"))
    second_at = next(at for path, at in sent if path.endswith("/j-2"))
    assert second_at - throttled_at >= 0.95  # Retry-After: 1, honoured by the other client too


def test_the_back_off_never_outlasts_a_calls_retry_budget() -> None:
    """A call whose retry budget ends before the account's pause is refused at once, unsent: it neither
    sleeps its whole budget nor goes out during the pause after it."""
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"metadata": {"id": "j-3"}, "status": {"phase": "Pending"}})

    with ModelArtsAPI(Transport(
        endpoint="http://127.0.0.1:10", project_id="p-budget", auth=httpx.Auth(),
        transport=httpx.MockTransport(handler), max_retry_seconds=0.2,
    )) as client:  # fmt: skip
        client.transport.throttle_gate.refused(gateway_refusal(30.0), delay=30.0)
        started = time.monotonic()
        with pytest.raises(ThrottledError, match=r"paused for 30s more.*it was not sent"):
            client.get_job("j-3")
    assert time.monotonic() - started < 0.15 and sent == []


# ---------------------------------------------------------------------------------------------- the emulator


@pytest.fixture
def rated() -> Iterator[EmulatorProcess]:
    with start_emulator(rate_limit=5, creating_seconds=60, pending_seconds=60) as emu:
        yield emu


def test_the_emulator_throttles_by_rate_with_the_gateways_code(rated: EmulatorProcess) -> None:
    with httpx.Client(auth=rated.auth(), timeout=10) as http:
        answers = [http.post(rated.api_url("/training-job-searches"), json={"limit": 1}) for _ in range(8)]
    statuses = [a.status_code for a in answers]
    assert statuses[:5] == [200] * 5 and 429 in statuses[5:]
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.json()["error_code"] == "APIG.0308" and int(refused.headers["Retry-After"]) >= 1
    # Its budget refills as time passes (a refused call spends none): it answers again.
    with httpx.Client(auth=rated.auth(), timeout=10) as http:
        again = poll(
            lambda: http.post(rated.api_url("/training-job-searches"), json={"limit": 1}),
            lambda answer: answer.status_code != 429,
            timeout=5,
            what="an answer once the budget refilled",
        )
        assert again.status_code == 200


def test_the_emulators_search_by_id_takes_ten_values_and_pages_of_fifty(emulator: EmulatorProcess) -> None:
    url = emulator.api_url("/training-job-searches")
    ids = {"key": "id", "operator": "in", "value": [f"id-{i}" for i in range(11)]}
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        too_many = http.post(url, json={"filters": [ids]})
        assert too_many.status_code == 400 and too_many.json()["error_code"] == "ModelArts.2809"
        assert http.post(url, json={"limit": 51}).status_code == 400
        ids["value"] = ids["value"][:10]
        assert http.post(url, json={"limit": 50, "filters": [ids]}).json()["items"] == []


def _inputs(name: str, **annotations: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "annotations": annotations} if annotations else {"name": name}
    return minimal_job(node_count=1.0, metadata=metadata, wait_for="completed", show_logs=False)


def _job_id(emu: EmulatorProcess, name: str) -> str:
    def find() -> list[dict[str, Any]]:
        with httpx.Client(auth=emu.auth(), timeout=10) as http:
            body = {"filters": [{"key": "name", "operator": "in", "value": [name]}]}
            return list(http.post(emu.api_url("/training-job-searches"), json=body).json()["items"])

    return str(poll(find, bool, timeout=10, what=f"job {name}")[0]["metadata"]["id"])


def test_waits_sharing_their_polls_each_get_their_own_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs finishing at different times, one failing, one vanishing and one terminated out of band, all
    waiting at once in one process: each create returns or fails with its own job, and the polls were
    shared (searches, far fewer reads than polls)."""
    monkeypatch.setenv("PULUMI_MODELARTS_POLL_SECONDS", "0.05")
    plan = {
        "quick": {"emulator/running-seconds": "0.5"},
        "slow": {"emulator/running-seconds": "2.5"},
        "middle": {"emulator/running-seconds": "1.5"},
        "failing": {"emulator/fail-after-seconds": "0.8", "emulator/failure-message": "loss is nan"},
        "vanishing": {"emulator/stay-pending": "true"},
        "stopped": {"emulator/stay-pending": "true"},
    }
    with start_emulator(
        creating_seconds=0.2, pending_seconds=0.3, running_seconds=1, terminating_seconds=0.1
    ) as emu:

        def create(name: str) -> Any:
            with core.open_client({}, ProgressLines(), emu.provider_env()) as client:
                try:
                    return core.create(_inputs(f"shared-{name}", **plan[name]), client, ProgressLines())
                except ProvisioningError as exc:
                    return exc

        def out_of_band() -> None:
            vanishing, stopped = _job_id(emu, "shared-vanishing"), _job_id(emu, "shared-stopped")
            # Once both jobs exist, a search more: the waits are under way, sharing their polls.
            searched = emu.stats()["by_operation"].get("search", 0)
            poll(
                lambda: emu.stats()["by_operation"].get("search", 0),
                lambda n: n > searched,
                timeout=10,
                what="a shared poll",
            )
            with httpx.Client(auth=emu.auth(), timeout=10) as http:
                http.delete(emu.api_url(f"/training-jobs/{vanishing}")).raise_for_status()
                action = {"action_type": "terminate"}
                http.post(emu.api_url(f"/training-jobs/{stopped}/actions"), json=action).raise_for_status()

        with concurrent.futures.ThreadPoolExecutor(len(plan) + 1) as pool:
            meddler = pool.submit(out_of_band)
            results = dict(zip(plan, pool.map(create, plan), strict=True))
            meddler.result(timeout=10)
        calls = emu.stats()["by_operation"]
    for name in ("quick", "middle", "slow"):
        state = results[name]
        assert not isinstance(state, Exception), state
        assert state.outputs["metadata"]["name"] == f"shared-{name}" and state.outputs["phase"] == "Completed"
        assert state.outputs["status"]["phase"] == "Completed"
    assert "shared-failing" in str(results["failing"]) and "Failed" in str(results["failing"])
    assert "loss is nan" in str(results["failing"])
    assert "shared-vanishing" in str(results["vanishing"]) and "disappeared" in str(results["vanishing"])
    assert "shared-stopped" in str(results["stopped"]) and "was stopped" in str(results["stopped"])
    assert calls.get("search", 0) > 0
    # Reads by id: each job's final document or report, the vanished job's 2775, and a few polls alone.
    # Alone, each job would read itself by id at every poll (about ten times here); shared, a job is read by
    # id for its final document or report (or its 2775), and rarely polls alone.
    assert calls.get("get", 0) <= 2 * len(plan), calls


def test_clients_on_an_injected_clock_poll_alone() -> None:
    client = ModelArtsAPI(
        Transport(
            endpoint="http://127.0.0.1:11",
            project_id="p",
            auth=httpx.Auth(),
            clock=lambda: 0.0,
            sleep=lambda s: None,
        )
    )
    with client:
        assert group_for(client) is None


def test_answers_that_are_errors_count_towards_what_the_account_allowed() -> None:
    """A destroy of vanished jobs meets 404s: the account answered them, so they are not a rate of nothing."""
    t = FakeTime(start=10.0)
    answered: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        answered.append(1)
        if len(answered) == 11:
            body = {"error_code": "APIG.0308", "error_msg": "throttled"}
            return httpx.Response(429, json=body, headers={"Retry-After": "1"})
        return httpx.Response(404, json={"error_code": "ModelArts.2775", "error_msg": "no such job"})

    with ModelArtsAPI(Transport(
        endpoint="http://127.0.0.1:12", project_id="p-gone", auth=httpx.Auth(),
        transport=httpx.MockTransport(handler), sleep=t.sleep, clock=t.clock, rng=lambda: 0.0,
    )) as client:  # fmt: skip
        for _ in range(11):
            with pytest.raises(NotFoundError):
                client.get_job("j-gone")
        # Learned 1 s ago, from ten answers.
        assert client.transport.throttle_gate.rate() == pytest.approx(
            10.0 * SLOWDOWN * (1 + GROWTH_PER_SECOND)
        )
