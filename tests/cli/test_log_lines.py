"""The newest line of a job's log shown while `pulumi up` waits for the job to complete, for both front-ends.

The emulator writes a progress line every tenth of a job's running time; the `emulator/log-echo-env` hook has
each line print the job's secret environment variable, as a careless training script would. The poll knob is
0.05 s in these tests (tests/cli/story.py), so a log is read at most every 1.5 s (30 poll units).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .front_ends import FRONT_ENDS, FrontEnd
from .story import assert_no_traceback, job_args, new_story

pytestmark = pytest.mark.cli

SECRET = "tok-0f9c2e71-never-shown"
RUNNING_SECONDS = 8.0
READ_INTERVAL = 30 * 0.05


def trainer(**settings: object) -> dict[str, object]:
    hooks = {"emulator/running-seconds": str(RUNNING_SECONDS), "emulator/log-echo-env": "API_TOKEN"}
    args = job_args(annotations=hooks, wait_for="completed", **settings)
    args["algorithm"]["environments"] = {"API_TOKEN": SECRET}  # type: ignore[index]
    return args


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_the_newest_log_line_shows_while_up_waits_for_the_job_to_complete(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    story = new_story(tmp_path, emulator, front_end=front_end)
    # Switched off: not one log read.
    story.declare({"quiet": trainer(show_logs=False)})
    emulator.reset_stats()
    up = story.stack.up()
    assert story.stack.outputs()["quiet"]["phase"] == "Completed"
    assert emulator.stats()["by_operation"].get("logs", 0) == 0
    assert " step " not in up.stdout + up.stderr

    story.declare({"quiet": trainer(show_logs=False), "trainer": trainer()})
    emulator.reset_stats()
    up = story.stack.up()
    text = up.stdout + up.stderr
    assert_no_traceback(up.stdout, up.stderr)
    assert story.stack.outputs()["trainer"]["phase"] == "Completed"
    live, _, diagnostics = text.partition("\nDiagnostics:\n")
    line = r"trainer-\w+ worker-0: \S+ step (\d+)/10 loss=[\d.]+ API_TOKEN=\*\*\*"
    if front_end.native:
        # On the job's own row, as its status; not kept among the diagnostics.
        shown = re.findall(r"TrainingJob trainer creating \(\d+s\) " + line, live)
        assert " step " not in diagnostics, diagnostics
    else:
        # A dynamic provider has no row: each new line once among the stack's diagnostics.
        shown = re.findall(r"modelarts: " + line, diagnostics)
    # Lines from several reads, each newer than the last (nothing shown twice); the secret never.
    steps = [int(step) for step in shown]
    assert len(steps) >= 2 and steps == sorted(set(steps)), text
    assert SECRET not in text
    reads = emulator.stats()["by_operation"].get("logs", 0)
    assert 2 <= reads <= RUNNING_SECONDS / READ_INTERVAL + 2, reads
    story.stack.destroy()
