"""Unique job names through the real CLI, against the emulator playing the service's rule (a name held by any
kept job, stopped ones included, is refused with ModelArts.2751).

Auto-names are deterministic, so previews show the name `up` uses and a plain re-run after a killed
`pulumi up`
meets the jobs it already started instead of starting them twice; replacing, destroying and re-creating jobs
work with pinned and generated names alike.
"""

from __future__ import annotations

import json
import signal
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import all_jobs, kill_group, live, make_stack, popen, state_job_ids
from .pulumi_cli import Stack

pytestmark = pytest.mark.cli

PROGRAM = textwrap.dedent(
    """
    import json
    from pathlib import Path

    import pulumi
    from pulumi_modelarts import TrainingJob

    # The test rewrites settings.json between runs (no `pulumi config set` run for each change).
    config = json.loads((Path(__file__).parent / "settings.json").read_text())
    annotations = {"emulator/stay-pending": "true"} if config.get("stay_pending") else {}
    jobs = []
    for i in range(config.get("jobs") or 2):
        metadata = {"description": "names", "annotations": annotations}
        if i == 0 and config.get("pinned"):
            metadata["name"] = config.get("pinned")
        jobs.append(
            TrainingJob(
                f"job-{i}",
                metadata=metadata,
                algorithm={
                    "engine": {"image_url": "org/trainer:1.0"},
                    "command": config.get("command") or "python train.py",
                },
                spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
                wait_for=config.get("wait_for") or "running",
                wait_timeout=config.get("wait_timeout") or "5m",
                on_destroy=config.get("on_destroy"),
            )
        )
    pulumi.export("names", [j.name for j in jobs])
    """
)
TIMINGS = {
    "creating_seconds": 0.3,
    "pending_seconds": 0.3,
    "running_seconds": 600,
    "terminating_seconds": 0.2,
}


def stack_for(tmp_path: Path, emu: EmulatorProcess, **settings: Any) -> Stack:
    stack = make_stack(tmp_path, emu, PROGRAM)
    configure(stack, **settings)
    return stack


def configure(stack: Stack, **settings: Any) -> None:
    """Change the program's settings (settings.json beside it), keeping the ones set before."""
    path = stack.workdir / "settings.json"
    kept = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**kept, **settings}))


def planned_names(stack: Stack) -> list[str]:
    """The job names a preview shows for the jobs it would create."""
    preview = json.loads(stack.preview("--json").stdout)
    names = []
    for step in preview.get("steps", []):
        inputs = (step.get("newState") or {}).get("inputs") or {}
        if step.get("op") in ("create", "replace", "create-replacement") and "metadata" in inputs:
            names.append(inputs["metadata"]["name"])
    return sorted(names)


def names_in(stack: Stack) -> list[str]:
    return sorted(stack.outputs()["names"])


def check_exactly_declared(stack: Stack, emu: EmulatorProcess, count: int) -> list[dict[str, Any]]:
    running = live(all_jobs(emu))
    assert sorted(j["metadata"]["id"] for j in running) == sorted(state_job_ids(stack))
    assert len(running) == count
    return running


def test_previews_show_the_name_up_uses_and_a_killed_up_rerun_creates_no_second_job(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    """Then, the jobs kept without a record (on_destroy delete), destroy frees their names: an `up` after it
    gets the same names again, pinned and generated, with nothing to delete or move past."""
    emu = emulator_factory(
        creating_seconds=1.5, pending_seconds=1.5, running_seconds=600, terminating_seconds=0.2
    )
    stack = stack_for(tmp_path, emu, jobs=4, pinned="pinned-job", on_destroy="delete")
    first, second = planned_names(stack), planned_names(stack)
    assert first == second and len(first) == 4
    assert "pinned-job" in first

    proc = popen(stack, "up", "--yes", "--skip-preview")
    deadline = time.monotonic() + 60
    while len(all_jobs(emu)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "up ended before the jobs appeared"
        time.sleep(0.05)
    kill_group(proc, signal.SIGKILL)
    proc.communicate(timeout=120)
    started = {j["metadata"]["name"] for j in all_jobs(emu)}
    assert started and started <= set(first)

    stack.run("cancel", "--yes", check=False)  # a SIGKILLed update leaves the stack locked
    rerun = stack.up()
    jobs = all_jobs(emu)
    assert sorted(j["metadata"]["name"] for j in jobs) == first, rerun.stdout
    assert "adopting it" in rerun.stdout + rerun.stderr
    check_exactly_declared(stack, emu, 4)
    assert names_in(stack) == first
    stack.destroy()
    assert live(all_jobs(emu)) == []
    assert all_jobs(emu) == []  # no record kept

    again = stack.up()
    assert names_in(stack) == first  # the same names again, nothing had to be freed or moved on
    assert "deleting that job's record" not in again.stdout + again.stderr
    assert "using the next generated name" not in again.stdout + again.stderr
    check_exactly_declared(stack, emu, 4)


def stale_handled(run: Any, pinned: bool) -> bool:
    """Whether the run's progress says it met a stopped job holding a name, and how it got past it."""
    said = run.stdout + run.stderr
    return ("deleting that job's record" if pinned else "using the next generated name") in said


def test_replace_destroy_up_and_a_failed_replace_retried(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    """job-0 has a pinned name, job-1 a generated one: each step shows how each gets past a kept record."""
    emu = emulator_factory(**TIMINGS)
    stack = stack_for(tmp_path, emu, pinned="pinned-job")
    stack.up()
    check_exactly_declared(stack, emu, 2)

    # Replace (the old job is stopped first, its record kept: the name stays taken).
    configure(stack, command="python train.py --v2")
    replaced = stack.up()
    running = check_exactly_declared(stack, emu, 2)
    assert "pinned-job" in {j["metadata"]["name"] for j in running}
    assert "deleting that job's record" in replaced.stdout + replaced.stderr

    # Destroy, then up again: the kept records of the destroyed jobs hold the names.
    stack.destroy()
    assert live(all_jobs(emu)) == []
    again = stack.up()
    check_exactly_declared(stack, emu, 2)
    assert stale_handled(again, pinned=True)
    assert stale_handled(again, pinned=False)

    # A replace whose create fails half-way (the new jobs never leave Pending), retried with a wait it meets.
    configure(stack, stay_pending=True, wait_timeout="2s")
    failed = stack.up(check=False)
    assert failed.returncode != 0
    configure(stack, wait_for="pending")
    retried = stack.up()
    assert stale_handled(retried, pinned=True)
    assert stale_handled(retried, pinned=False)
    running = check_exactly_declared(stack, emu, 2)
    assert "pinned-job" in {j["metadata"]["name"] for j in running}
    names = Counter(j["metadata"]["name"] for j in all_jobs(emu))
    assert max(names.values()) == 1, names  # the service's rule held throughout
    stack.destroy()
    assert live(all_jobs(emu)) == []
