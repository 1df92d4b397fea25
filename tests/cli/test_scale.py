"""Item 2: one stack of 50 jobs: up, empty preview, an in-place update of all 50, refresh, destroy.

Every job is created exactly once (the emulator counts create calls), the update reaches every job (no lost
update), and nothing crashes or is left running.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import all_jobs, jobs_program, live, make_stack, state_job_ids
from .front_ends import FRONT_ENDS, FrontEnd

pytestmark = pytest.mark.cli

JOBS = 50
PROGRAM = jobs_program(JOBS, wait_for="pending").replace(
    'metadata={"description": f"reliability job {i}"}',
    "metadata={\"description\": f\"{pulumi.Config().get('note') or 'first'} {i}\"}",
)


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_fifty_jobs_up_preview_update_refresh_destroy(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    assert "Config().get('note')" in PROGRAM
    emu = emulator_factory(running_seconds=600)
    stack = make_stack(tmp_path, emu, PROGRAM, front_end=front_end)
    timings: dict[str, float] = {}

    def timed(step: str, action: Callable[[], object]) -> None:
        started = time.monotonic()
        action()
        timings[step] = round(time.monotonic() - started, 1)

    timed("up", stack.up)
    jobs = all_jobs(emu)
    assert len(jobs) == JOBS
    assert max(Counter(j["metadata"]["name"] for j in jobs).values()) == 1
    assert emu.stats()["by_operation"]["create"] == JOBS
    assert sorted(state_job_ids(stack, front_end)) == sorted(j["metadata"]["id"] for j in jobs)

    timed("preview", lambda: stack.preview("--expect-no-changes"))

    stack.config("note", "second")
    emu.reset_stats()
    timed("update", stack.up)
    stats = emu.stats()
    assert stats["by_operation"].get("create", 0) == 0, "a description change must not create jobs"
    assert stats["by_operation"]["update"] == JOBS
    descriptions = sorted(j["metadata"].get("description", "") for j in all_jobs(emu))
    assert descriptions == sorted(f"second {i}" for i in range(JOBS)), "an update was lost"

    timed("refresh", lambda: stack.refresh("--expect-no-changes"))
    timed("destroy", stack.destroy)
    assert state_job_ids(stack, front_end) == []
    assert live(all_jobs(emu)) == []
    print(f"{front_end.name} jobs={JOBS} " + " ".join(f"{k}={v}s" for k, v in timings.items()))
