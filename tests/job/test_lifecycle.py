"""Pure rules of a job's life: wait targets and what a phase means for them, backoff, durations, elapsed
time, failure text (setting_values, waiting.targets, waiting.polling, labels, waiting.failure_text)."""

from __future__ import annotations

import itertools

import pytest

from pulumi_modelarts.job import labels, setting_values
from pulumi_modelarts.job.setting_values import WaitFor
from pulumi_modelarts.job.waiting import failure_text, polling, targets
from pulumi_modelarts.job.waiting.targets import Verdict
from pulumi_modelarts.wire import phases


@pytest.mark.parametrize(
    ("phase", "wait_for", "verdict"),
    [
        ("Creating", "pending", Verdict.WAIT),
        (None, "pending", Verdict.WAIT),
        ("Pending", "pending", Verdict.DONE),
        ("Running", "pending", Verdict.DONE),
        ("Completed", "pending", Verdict.DONE),
        ("Pending", "running", Verdict.WAIT),
        ("Running", "running", Verdict.DONE),
        ("Completed", "running", Verdict.DONE),
        ("Running", "completed", Verdict.WAIT),
        ("Completed", "completed", Verdict.DONE),
        ("Failed", "pending", Verdict.FAILED),
        ("Abnormal", "running", Verdict.FAILED),
        ("Terminating", "completed", Verdict.FAILED),
        ("Terminated", "running", Verdict.FAILED),
        ("SomethingNew", "running", Verdict.WAIT),
        ("Failed", "none", Verdict.DONE),
        ("Creating", "none", Verdict.DONE),
    ],
)
def test_classify(phase: str | None, wait_for: WaitFor, verdict: Verdict) -> None:
    assert targets.classify(phase, wait_for) is verdict


@pytest.mark.parametrize("phase", ["Abnormal", "Creating", "Running", None])
def test_classify_create_failed_ends_every_wait(phase: str | None) -> None:
    # The service reports a failed creation as phase Abnormal, secondary phase CreateFailed; the secondary
    # phase alone is enough, whatever the level-1 phase says.
    for wait_for in ("pending", "running", "completed"):
        assert targets.classify(phase, wait_for, "CreateFailed") is Verdict.FAILED
    assert targets.classify(phase, "none", "CreateFailed") is Verdict.DONE
    assert targets.classify("Running", "running", "Running") is Verdict.DONE


def test_wait_for_parse() -> None:
    assert setting_values.parse_wait_for("Running") == "running"
    assert setting_values.parse_wait_for(" none ") == "none"
    for bad in ("started", "", None, 3, ["running"]):
        with pytest.raises(ValueError, match="must be one of"):
            setting_values.parse_wait_for(bad)


def test_terminable_phases_follow_the_terminate_page() -> None:
    assert [p for p in ("Creating", "Pending", "Running") if phases.is_terminable(p)] == [
        "Creating",
        "Pending",
        "Running",
    ]
    for phase in ("Completed", "Failed", "Terminating", "Terminated", "Abnormal", None):
        assert not phases.is_terminable(phase)


def test_backoff_grows_and_caps() -> None:
    delays = list(itertools.islice(polling.backoff(1.0, 15.0), 12))
    assert delays[0] == 1.0
    assert delays[1] == 1.5
    assert all(b >= a for a, b in itertools.pairwise(delays))
    assert max(delays) == 15.0
    assert delays[-1] == 15.0
    assert list(itertools.islice(polling.backoff(0.01, 0.02), 3)) == [0.01, 0.015, 0.02]
    with pytest.raises(ValueError):
        next(polling.backoff(0, 1))


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (90, 90.0),
        (2.5, 2.5),
        ("90", 90.0),
        ("90s", 90.0),
        ("30m", 1800.0),
        ("1h30m", 5400.0),
        ("1h", 3600.0),
        ("1.5h", 5400.0),
        ("2m30s", 150.0),
        (" 1H 5M ", 3900.0),
    ],
)
def test_parse_duration(value: object, seconds: float) -> None:
    assert setting_values.parse_duration(value) == seconds


@pytest.mark.parametrize(
    "value",
    [
        0,
        -5,
        "0s",
        "",
        "abc",
        "30x",
        "m",
        "30m1h",
        "1h1h",
        True,
        None,
        [1],
        float("nan"),
        float("inf"),
        "8d",
        10**9,
    ],
)
def test_parse_duration_rejects(value: object) -> None:
    with pytest.raises(ValueError):
        setting_values.parse_duration(value)


def test_format_elapsed() -> None:
    assert labels.format_elapsed(0.43) == "0.4s"
    assert labels.format_elapsed(12.7) == "12s"
    assert labels.format_elapsed(185) == "3m05s"
    assert labels.format_elapsed(3720) == "1h02m"


def test_describe_failure_has_everything_a_reader_needs() -> None:
    status = {
        "phase": "Failed",
        "secondary_phase": "Failed",
        "duration": 12000,
        "task_statuses": [
            {"task": "worker-0", "exit_code": 137, "message": "OOMKilled"},
            {"task": "worker-1", "exit_code": 0},
            "junk",
            {"task": "worker-2"},
        ],
    }
    text = failure_text.describe_failure(
        name="train-abc123",
        job_id="5a0e",
        status=status,
        reason="ended Failed",
        terminated=False,
        wait_for="running",
    )
    assert text.splitlines()[0] == "training job train-abc123 (id 5a0e) ended Failed."
    assert "phase Failed, secondary phase Failed, ran 12s" in text
    assert "task worker-0: exit code 137, message OOMKilled" in text
    assert "task worker-1: exit code 0" in text
    assert "worker-2" not in text
    assert "nothing is left running" in text

    timed_out = failure_text.describe_failure(
        name="n",
        job_id="i",
        status={"phase": "Pending"},
        reason="did not reach Running within 2s",
        terminated=True,
    )
    assert "was terminated" in timed_out
    unknown = failure_text.describe_failure(name=None, job_id="i", status=None, reason="x", terminated=None)
    assert "phase unknown" in unknown
    assert "could NOT be terminated" in unknown
