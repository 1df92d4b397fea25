"""Item 3: `pulumi up` interrupted while creates are in flight, and the recovery path users follow.

Each case starts `pulumi up` of six jobs that take ~3 s each to reach Running, signals it once some jobs
exist, then follows the README's recovery procedure:

1. `pulumi cancel --yes` (a SIGKILLed update leaves the stack locked);
2. `pulumi stack export --file state.json` and `python -m pulumi_modelarts.orphans --stack-export state.json`:
   at that point every running job is either in the state or reported by the finder;
3. if any were reported: the finder again with `--adopt-to adopted.json`, `pulumi stack import --file
   adopted.json`, `pulumi refresh` (the jobs join the state; none is created twice);
4. `pulumi up`: the emulator then holds exactly the six declared jobs, all in the state;
5. `pulumi destroy`: none left running.

A second path terminates the orphans instead (`--terminate`, then `pulumi refresh --clear-pending-creates`).

Two more cases pin what a wait that gives up does: with the engine listening it terminates its job; after the
engine was SIGKILLed the provider host lives on, its wait still times out, and the job is left running.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pulumi_modelarts.emulator.testing import EmulatorProcess

from .cli_helpers import all_jobs, jobs_program, live, make_stack, popen, state_job_ids
from .pulumi_cli import Stack

pytestmark = pytest.mark.cli

JOBS = 6
SLOW_START = {
    "creating_seconds": 1.5,
    "pending_seconds": 1.5,
    "running_seconds": 600,
    "terminating_seconds": 0.2,
}


@pytest.fixture(autouse=True)
def no_leftover_plugins(tmp_path: Path) -> Iterator[None]:
    """After the test, stop the provider processes a killed `pulumi up` left behind.

    The engine starts plugins in their own process group, so killing `pulumi`'s group does not reach them, and
    a provider whose engine is gone waits forever. They are recognised by this test's private state directory
    in their environment.
    """
    yield
    for pid in stack_processes(tmp_path):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def stack_processes(tmp_path: Path, command: bytes = b"") -> list[int]:
    """Processes started for this test's stack (its private state directory is in their environment)."""
    marker = str(tmp_path).encode()
    found: list[int] = []
    for proc_dir in Path("/proc").iterdir():
        if not proc_dir.name.isdigit() or int(proc_dir.name) == os.getpid():
            continue
        try:
            environ = (proc_dir / "environ").read_bytes()
            cmdline = (proc_dir / "cmdline").read_bytes()
        except OSError:
            continue
        entries = environ.split(b"\0")
        if command in cmdline and any(
            entry.startswith(b"PULUMI_BACKEND_URL=") and marker in entry for entry in entries
        ):
            found.append(int(proc_dir.name))
    return found


def interrupted_up(stack: Stack, emu: EmulatorProcess, sig: signal.Signals, *, whole_group: bool) -> str:
    """Start `pulumi up`, signal it once two jobs exist, and return what it printed."""
    proc = popen(stack, "up", "--yes", "--skip-preview")
    deadline = time.monotonic() + 60
    while len(all_jobs(emu)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "up ended before the jobs appeared"
        time.sleep(0.05)
    if whole_group:  # Ctrl-C in a terminal, or a CI runner killing the job's process group
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode != 0, out
    return out


def run_orphans(stack: Stack, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    export = tmp_path / "state.json"
    stack.run("stack", "export", "--file", str(export))
    finder = subprocess.run(
        [sys.executable, "-m", "pulumi_modelarts.orphans", "--stack-export", str(export), "--json", *extra],
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finder.returncode in (0, 3), finder.stderr
    report: dict[str, Any] = json.loads(finder.stdout)
    return finder.returncode, report


def check_nothing_unseen(stack: Stack, emu: EmulatorProcess, report: dict[str, Any]) -> None:
    known = set(state_job_ids(stack)) | {o["id"] for o in report["orphans"]}
    unseen = [j["metadata"]["id"] for j in live(all_jobs(emu)) if j["metadata"]["id"] not in known]
    assert not unseen, f"running jobs neither in the state nor reported: {unseen}"


def finish(stack: Stack, emu: EmulatorProcess) -> None:
    stack.up()
    jobs = all_jobs(emu)
    running = live(jobs)
    assert sorted(j["metadata"]["id"] for j in running) == sorted(state_job_ids(stack))
    assert len(running) == JOBS
    stack.destroy()
    assert live(all_jobs(emu)) == []


CASES = {
    "sigkill-group": (signal.SIGKILL, True),
    "sigint-group": (signal.SIGINT, True),
    "sigint-cli-only": (signal.SIGINT, False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_interrupted_up_recovers_by_adopting_orphans(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], case: str
) -> None:
    sig, whole_group = CASES[case]
    emu = emulator_factory(**SLOW_START)
    stack = make_stack(tmp_path, emu, jobs_program(JOBS, wait_for="running"))
    interrupted_up(stack, emu, sig, whole_group=whole_group)

    stack.run("cancel", "--yes", check=False)  # only needed when the lock survived
    code, report = run_orphans(stack, tmp_path)
    check_nothing_unseen(stack, emu, report)
    print(
        case,
        "state",
        len(state_job_ids(stack)),
        "orphans",
        len(report["orphans"]),
        "jobs",
        len(all_jobs(emu)),
    )
    if report["orphans"]:
        assert code == 3
        adopted = tmp_path / "adopted.json"
        run_orphans(stack, tmp_path, "--adopt-to", str(adopted))
        stack.run("stack", "import", "--file", str(adopted))
        stack.refresh()
        assert set(state_job_ids(stack)) >= {o["id"] for o in report["orphans"]}
        _code, after = run_orphans(stack, tmp_path)
        assert after["orphans"] == []
    finish(stack, emu)
    # Adopting means no job was created twice.
    assert len(all_jobs(emu)) == JOBS


def test_sigkill_then_terminate_orphans(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory(**SLOW_START)
    stack = make_stack(tmp_path, emu, jobs_program(JOBS, wait_for="running"))
    interrupted_up(stack, emu, signal.SIGKILL, whole_group=True)
    stack.run("cancel", "--yes")
    code, report = run_orphans(stack, tmp_path, "--terminate")
    assert code == 3 and report["orphans"], "a SIGKILL mid-create must leave jobs only the finder knows"
    assert sorted(report["terminated"]) == sorted(o["id"] for o in report["orphans"])
    stack.refresh("--clear-pending-creates")
    assert not stack.export()["deployment"].get("pending_operations")
    finish(stack, emu)


PENDING_FOR_EVER = textwrap.dedent(
    """
    import pulumi
    from pulumi_modelarts import TrainingJob

    jobs = [
        TrainingJob(
            f"job-{i}",
            metadata={"annotations": {"emulator/stay-pending": "true"}},
            algorithm={"engine": {"image_url": "org/trainer:1.0"}, "command": "python train.py"},
            spec={"resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}},
            wait_for="running",
            wait_timeout=%s,
        )
        for i in range(2)
    ]
    """
)


def test_a_timed_out_wait_terminates_its_job_while_the_engine_listens(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    stack = make_stack(tmp_path, emulator, PENDING_FOR_EVER % 2)
    up = stack.up(check=False)
    assert up.returncode != 0
    assert "did not reach running within 2.0s" in up.stdout + up.stderr
    jobs = all_jobs(emulator)
    assert len(jobs) == 2 and live(jobs) == []
    assert emulator.stats()["by_operation"].get("terminate") == 2


def test_a_provider_whose_engine_was_killed_never_terminates_the_job_it_waited_for(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    timeout = 3.0
    stack = make_stack(tmp_path, emulator, PENDING_FOR_EVER % timeout)
    proc = popen(stack, "up", "--yes", "--skip-preview")
    deadline = time.monotonic() + 60
    while len(all_jobs(emulator)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "up ended before the jobs appeared"
        time.sleep(0.05)
    created = time.monotonic()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    providers = stack_processes(tmp_path, b"pulumi.dynamic")
    assert providers, "the provider host outlives its engine"
    # The provider's waits time out now, with nobody listening: the jobs are left for modelarts-orphans.
    time.sleep(max(0.0, created + timeout + 3.0 - time.monotonic()))
    assert set(stack_processes(tmp_path, b"pulumi.dynamic")) == set(providers), "the provider is still there"
    jobs = all_jobs(emulator)
    assert [j["status"]["phase"] for j in jobs] == ["Pending", "Pending"]
    assert "terminate" not in emulator.stats()["by_operation"]
