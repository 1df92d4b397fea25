"""The one wait loop: conditions that end or fail it, the timeout, a vanished job, the poll knob."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pulumi_modelarts.job.errors import JobVanished, WaitCancelled, WaitError, WaitFailed, WaitTimedOut
from pulumi_modelarts.job.waiting import polling as wait
from pulumi_modelarts.job.waiting.polling import Condition, until
from pulumi_modelarts.wire.api_errors import NotFoundError, ServerError
from pulumi_modelarts.wire.errors import ModelArtsError
from pulumi_modelarts.wire.models import TrainingJob

from ...support import FakeTime


def job(phase: str | None, secondary: str | None = None) -> TrainingJob:
    status: dict[str, Any] = {"phase": phase}
    if secondary is not None:
        status["secondary_phase"] = secondary
    return TrainingJob.model_validate({"metadata": {"id": "j-1", "name": "train-x"}, "status": status})


class Service:
    """fetch() answers the scripted phases in turn (the last one for ever), or raises a scripted error."""

    def __init__(self, *answers: TrainingJob | BaseException) -> None:
        self.answers = list(answers)
        self.calls = 0

    def fetch(self) -> TrainingJob:
        self.calls += 1
        answer = self.answers[min(self.calls, len(self.answers)) - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer


def phase_is(*phases: str) -> Callable[[TrainingJob], bool]:
    return lambda j: j.phase in phases


RUNNING = Condition("running", phase_is("Running"))
FAILED = Condition("ended Failed", phase_is("Failed"))


def run(first: TrainingJob, service: Service, clock: FakeTime, **kwargs: Any) -> TrainingJob:
    kwargs.setdefault("done", [RUNNING])
    kwargs.setdefault("fail", [FAILED])
    kwargs.setdefault("timeout", 60.0)
    kwargs.setdefault("delays", itertools.repeat(1.0))
    return until(first, service.fetch, clock=clock.clock, sleep=clock.sleep, **kwargs)


def test_returns_the_job_once_a_done_condition_holds_and_reports_each_phase_change() -> None:
    clock = FakeTime(start=100.0)
    service = Service(job("Creating"), job("Pending"), job("Pending"), job("Running"))
    changes: list[tuple[str | None, float]] = []

    def changed(j: TrainingJob, elapsed: float) -> None:
        changes.append((j.phase, elapsed))

    got = run(job("Creating"), service, clock, on_change=changed)
    assert got.phase == "Running"
    assert service.calls == 4
    assert clock.sleeps == [1.0] * 4
    assert changes == [("Pending", 2.0), ("Running", 4.0)]


def test_a_job_already_there_is_neither_fetched_nor_waited_for() -> None:
    clock = FakeTime(start=100.0)
    service = Service(job("Failed"))
    assert run(job("Running"), service, clock).phase == "Running"
    assert service.calls == 0 and clock.sleeps == []


def test_a_failing_condition_raises_naming_it_with_the_job_as_last_seen() -> None:
    clock = FakeTime(start=100.0)
    service = Service(job("Pending"), job("Failed", "Failed"))
    with pytest.raises(WaitFailed) as info:
        run(job("Creating"), service, clock)
    assert info.value.condition == "ended Failed"
    assert info.value.job.phase == "Failed"
    assert info.value.elapsed == 2.0
    assert "ended Failed" in str(info.value) and "j-1" in str(info.value)


def test_failing_conditions_are_tested_before_done_ones() -> None:
    both = Condition("anything", lambda _j: True)
    with pytest.raises(WaitFailed):
        run(job("Running"), Service(), FakeTime(start=100.0), done=[both], fail=[FAILED, both])


def test_any_done_condition_ends_the_wait() -> None:
    completed = Condition("completed", phase_is("Completed"))
    clock = FakeTime(start=100.0)
    got = run(job("Pending"), Service(job("Completed")), clock, done=[RUNNING, completed])
    assert got.phase == "Completed"


def test_timeout_raises_with_the_goal_and_never_sleeps_past_the_deadline() -> None:
    clock = FakeTime(start=100.0)
    service = Service(job("Pending"))
    with pytest.raises(WaitTimedOut) as info:
        run(job("Pending"), service, clock, timeout=2.5, delays=itertools.repeat(1.0))
    error = info.value
    assert error.goal == "running" and error.timeout == 2.5 and error.elapsed == 2.5
    assert error.job.phase == "Pending"
    assert clock.sleeps == [1.0, 1.0, 0.5]  # the last pause is cut to the deadline
    assert service.calls == 3
    assert "running" in str(error) and "Pending" in str(error)


def test_a_slow_fetch_counts_against_the_timeout() -> None:
    clock = FakeTime(start=100.0)

    def slow() -> TrainingJob:
        clock.now += 10.0
        return job("Pending")

    with pytest.raises(WaitTimedOut) as info:
        until(job("Pending"), slow, done=[RUNNING], timeout=5.0, delays=itertools.repeat(1.0),
              clock=clock.clock, sleep=clock.sleep)  # fmt: skip
    assert info.value.elapsed == 11.0 and clock.sleeps == [1.0]


def test_several_goals_are_named_together() -> None:
    stopped = Condition("stopped", phase_is("Terminated"))
    with pytest.raises(WaitTimedOut) as info:
        run(
            job("Pending"),
            Service(job("Pending")),
            FakeTime(start=100.0),
            done=[RUNNING, stopped],
            timeout=1.0,
        )
    assert info.value.goal == "running or stopped"


def test_a_job_that_vanishes_raises_job_vanished_with_the_job_last_seen() -> None:
    clock = FakeTime(start=100.0)
    service = Service(job("Pending"), NotFoundError(400, "ModelArts.2775", "not found"))
    with pytest.raises(JobVanished) as info:
        run(job("Creating"), service, clock)
    assert info.value.job.phase == "Pending"
    assert info.value.elapsed == 2.0


@pytest.mark.parametrize("error", [ServerError(503, "APIG.0203", "busy"), RuntimeError("a bug")])
def test_other_fetch_errors_propagate_unchanged(error: Exception) -> None:
    with pytest.raises(type(error)) as info:
        run(job("Creating"), Service(error), FakeTime(start=100.0))
    assert info.value is error


def test_the_typed_errors_share_one_base() -> None:
    for cls in (WaitFailed, WaitTimedOut, JobVanished):
        assert issubclass(cls, WaitError) and issubclass(cls, ModelArtsError)


def first(delays: Iterator[float], count: int) -> list[float]:
    return list(itertools.islice(delays, count))


def test_poll_delays_follow_the_knob() -> None:
    assert first(wait.poll_delays({}), 3) == [1.0, 1.5, 2.25]
    assert max(first(wait.poll_delays({}), 20)) == 15.0
    knob = first(wait.poll_delays({wait.POLL_SECONDS_ENV: "0.02"}), 20)
    assert knob[:2] == [0.02, 0.03] and max(knob) == pytest.approx(0.3)
    for unusable in ("", "abc", "0", "-1", "61", "nan"):
        assert first(wait.poll_delays({wait.POLL_SECONDS_ENV: unusable}), 1) == [1.0], unusable


def test_until_reads_the_knob_when_given_no_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(wait.POLL_SECONDS_ENV, "0.5")
    clock = FakeTime(start=100.0)
    until(job("Pending"), Service(job("Pending"), job("Running")).fetch, done=[RUNNING], timeout=60,
          clock=clock.clock, sleep=clock.sleep)  # fmt: skip
    assert clock.sleeps == [0.5, 0.75]


def test_a_set_stop_event_ends_the_wait_before_the_next_poll() -> None:
    import threading

    stop = threading.Event()
    stop.set()
    service = Service(job("Pending"))
    with pytest.raises(WaitCancelled) as info:
        until(
            job("Pending"),
            service.fetch,
            done=[Condition("running", lambda j: j.phase == "Running")],
            timeout=600,
            stop=stop,
        )
    assert service.calls == 0
    assert info.value.job.phase == "Pending"


def test_an_unset_stop_event_lets_the_wait_finish() -> None:
    import threading

    service = Service(job("Pending"), job("Running"))
    found = until(
        job("Creating"),
        service.fetch,
        done=[Condition("running", lambda j: j.phase == "Running")],
        timeout=600,
        delays=itertools.repeat(0.0),
        stop=threading.Event(),
    )
    assert found.phase == "Running" and service.calls == 2
