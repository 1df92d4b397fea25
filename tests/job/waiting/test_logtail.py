"""The newest log line on a waiting job's row: new-line selection, cleaning, the read budget, failures."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pulumi_modelarts.job.waiting import logtail
from pulumi_modelarts.job.waiting.logtail import LogFollower, Throttle, clean_line, new_lines
from pulumi_modelarts.wire.api_errors import ThrottledError
from pulumi_modelarts.wire.models import LogPreview, TrainingJob

from ...support import FakeTime

# ---------------------------------------------------------------------------------------------- new lines


def test_the_first_read_sees_every_complete_line_and_keeps_a_partial_one_for_later() -> None:
    lines, seen = new_lines("a\nb\nhalf", None, None)
    assert lines == ["a", "b"] and seen == 4
    # The log grew: the half line is complete now, and one more came.
    lines, seen = new_lines("a\nb\nhalf done\nc\n", None, seen)
    assert lines == ["half done", "c"] and seen == len("a\nb\nhalf done\nc\n")


def test_nothing_new_is_nothing_shown() -> None:
    text = "a\nb\n"
    _, seen = new_lines(text, len(text), None)
    assert new_lines(text, len(text), seen) == ([], seen)
    assert new_lines(text + "still writ", None, seen) == ([], seen)


def test_a_window_that_moved_on_uses_the_full_size_to_find_new_lines() -> None:
    whole = "".join(f"line {i:02d}\n" for i in range(100))  # 8 bytes a line
    _, seen = new_lines(whole[:80], 80, None)  # lines 00..09 seen
    # Later the preview holds only the latest 164 bytes (20.5 lines) of the whole log.
    lines, after = new_lines(whole[-164:], len(whole), seen)
    assert lines == [f"line {i}" for i in range(80, 100)]  # what the window holds, its fragment dropped
    assert after == len(whole)
    # The window still holds what was seen: only what follows it is new.
    _, seen = new_lines(whole[:-16], len(whole) - 16, None)
    lines, _ = new_lines(whole[-164:], len(whole), seen)
    assert lines == ["line 98", "line 99"]


def test_a_window_beginning_mid_line_drops_the_fragment_and_multibyte_text_counts_bytes() -> None:
    lines, seen = new_lines("ment\nwhole é line\n", 1000, None)
    assert lines == ["whole é line"] and seen == 1000
    text = "é\nü\n"
    _, seen = new_lines(text, len(text.encode()), None)
    lines, _ = new_lines(text + "ñ\n", len((text + "ñ\n").encode()), seen)
    assert lines == ["ñ"]


def test_a_cleared_log_begins_again() -> None:
    _, seen = new_lines("a\nb\nc\n", None, None)
    assert new_lines("new\n", None, seen) == (["new"], 4)


# ---------------------------------------------------------------------------------------------- cleaning


def test_clean_line_hides_secrets_and_credentials_and_control_sequences() -> None:
    def scrub(text: str) -> str:
        return text.replace("AKIDEXAMPLE", "***")

    line = "\x1b[32mloss=0.1\x1b[0m token=env-s3cr3t key=AKIDEXAMPLE\x07"
    assert clean_line(line, ["env-s3cr3t"], scrub) == "loss=0.1 token=*** key=***"
    # A progress bar redrawn with carriage returns: what the terminal would show.
    assert clean_line(" 10%|#   \r 50%|#####\r", [], str) == "50%|#####"
    assert clean_line("x" * 500, [], str, limit=20) == "x" * 19 + "…"


# ---------------------------------------------------------------------------------------------- budget


def test_throttle_spaces_reads_and_backs_off_after_failures() -> None:
    throttle = Throttle(interval=30, max_pause=300)
    assert throttle.due(0)
    throttle.done(0, ok=True)
    assert not throttle.due(29.9) and throttle.due(30)
    throttle.done(30, ok=False)
    assert throttle.next_at == 90  # twice the pause
    throttle.done(90, ok=False)
    throttle.done(210, ok=False)
    throttle.done(450, ok=False)
    assert throttle.pause == 300  # capped
    throttle.done(750, ok=True)
    assert throttle.next_at == 780


def test_the_interval_follows_the_poll_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULUMI_MODELARTS_POLL_SECONDS", "0.1")
    follower = LogFollower(lambda task: None, lambda line: None, str)
    assert follower.throttle.interval == pytest.approx(3.0)
    monkeypatch.delenv("PULUMI_MODELARTS_POLL_SECONDS")
    assert LogFollower(lambda task: None, lambda line: None, str).throttle.interval == 30.0


# ---------------------------------------------------------------------------------------------- follower


def running(phase: str = "Running") -> TrainingJob:
    return TrainingJob.model_validate(
        {"metadata": {"id": "j", "name": "n"}, "status": {"phase": phase, "tasks": ["worker-0"]}}
    )


def test_one_read_per_interval_only_new_lines_shown_and_secrets_hidden() -> None:
    log = ["step 1 token=env-s3cr3t\n"]
    reads: list[str] = []
    shown: list[str] = []

    def read(task: str) -> LogPreview:
        reads.append(task)
        text = "".join(log)
        return LogPreview(content=text, current_size=len(text), full_size=len(text))

    clock = FakeTime(start=0.0)
    follower = LogFollower(
        read, shown.append, lambda t: t, hidden=["env-s3cr3t"], interval=10, max_pause=100, clock=clock.clock
    )
    follower.poll(running("Pending"))  # no log before Running
    assert follower.reads == 0
    for _ in range(5):  # many polls in one interval: one read
        follower.poll(running())
        assert follower.wait_idle()
    assert reads == ["worker-0"] and shown == ["worker-0: step 1 token=***"]
    clock.now = 10
    follower.poll(running())
    assert follower.wait_idle()
    assert len(reads) == 2 and len(shown) == 1  # nothing new: nothing shown again
    log.append("step 2\nstep 3\n")
    clock.now = 20
    follower.poll(running())
    assert follower.wait_idle()
    assert shown[-1] == "worker-0: step 3"  # the newest only
    follower.close()
    log.append("step 4\n")
    clock.now = 30
    follower.poll(running())
    assert follower.wait_idle() and len(reads) == 3  # closed: no more reads


@pytest.mark.parametrize(
    "failure",
    [ThrottledError(429, "APIG.0308", "throttled"), RuntimeError("closed client"), None],
)
def test_a_failed_or_throttled_read_never_reaches_the_wait_and_backs_off(failure: Exception | None) -> None:
    clock = FakeTime(start=0.0)
    shown: list[str] = []

    def read(task: str) -> Any:
        if failure is None:
            return LogPreview(content=None)  # no log yet (the service answered 204)
        raise failure

    follower = LogFollower(read, shown.append, str, interval=10, max_pause=100, clock=clock.clock)
    follower.poll(running())  # never raises
    assert follower.wait_idle() and shown == []
    expected = 10 if failure is None else 20  # a failure doubles the pause
    assert follower.throttle.next_at == expected


def test_a_slow_read_does_not_hold_up_the_poll() -> None:
    release = threading.Event()

    def read(task: str) -> LogPreview:
        release.wait(10)
        return LogPreview(content="late\n")

    shown: list[str] = []
    follower = LogFollower(read, shown.append, str, interval=0, max_pause=1)
    follower.poll(running())  # returns at once
    follower.poll(running())  # one in flight: no second read
    assert follower.reads == 1 and not follower.wait_idle(0.1)
    follower.close()  # the wait ended
    release.set()
    assert follower.wait_idle() and shown == []  # a read that ends after the wait shows nothing


def test_show_logs_is_a_setting_with_a_default() -> None:
    from pulumi_modelarts.generated.fields import SETTING_DEFAULTS, SETTINGS_FIELDS

    assert "show_logs" in SETTINGS_FIELDS and SETTING_DEFAULTS["show_logs"] is True
    assert logtail.READ_INTERVAL_POLLS == 30.0
