"""Many jobs of one native `up` waiting at once share their polls (searches), and each gets its own answer:
the ones that complete are recorded with their own document, the one that fails fails the `up` naming it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .front_ends import NATIVE
from .story import job_args, new_story

pytestmark = pytest.mark.cli


def test_jobs_waiting_together_share_their_polls_and_each_gets_its_own_answer(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory(creating_seconds=0.2, pending_seconds=0.5, terminating_seconds=0.1)
    jobs = {
        "quick": job_args(wait_for="completed", annotations={"emulator/running-seconds": "0.5"}),
        "slow": job_args(wait_for="completed", annotations={"emulator/running-seconds": "2.5"}),
        "failing": job_args(
            wait_for="completed",
            annotations={"emulator/fail-after-seconds": "1", "emulator/failure-message": "loss is nan"},
        ),
        **{f"fine-{i}": job_args(wait_for="running") for i in range(5)},
    }
    story = new_story(tmp_path, emu, front_end=NATIVE)
    story.declare(jobs)
    up = story.stack.up("--parallel", "32", check=False)
    assert up.returncode != 0
    text = up.stdout + up.stderr
    assert "loss is nan" in text and "Failed" in text
    recorded = {r["urn"].rsplit("::", 1)[1]: r["outputs"] for r in story.stack.resources(NATIVE.type_token)}
    assert recorded["quick"]["phase"] == recorded["slow"]["phase"] == "Completed"
    assert all(recorded[f"fine-{i}"]["phase"] in ("Running", "Completed") for i in range(5))
    assert len({o["metadata"]["id"] for o in recorded.values()}) == len(recorded)  # each its own job
    assert "failing" not in recorded  # a failed create is not recorded (its job was left Failed)
    calls = emu.stats()["by_operation"]
    assert calls.get("search", 0) > 0, calls
    story.stack.destroy()
