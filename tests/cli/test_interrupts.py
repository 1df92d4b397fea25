"""Item 3: `pulumi up` interrupted while creates are in flight, and the recovery path users follow.

Each case starts `pulumi up` of six jobs that take ~3 s each to reach Running, signals it once some jobs
exist, then follows the recovery procedure of docs/troubleshooting.md:

1. `pulumi cancel --yes` (a SIGKILLed update leaves the stack locked);
2. `pulumi stack export --file state.json` and `modelarts-orphans --stack-export state.json`:
   at that point every running job is either in the state or reported by the finder;
3. if any were reported: the finder again with `--adopt-to adopted.json`, `pulumi stack import --file
   adopted.json`, `pulumi refresh` (the jobs join the state; none is created twice);
4. `pulumi up`: the emulator then holds exactly the six declared jobs, all in the state;
5. `pulumi destroy` (after a SIGKILL's adopted jobs): none left running.

Ctrl-C (SIGINT to the process group, or to the CLI alone) leaves no lock, and the adopting case follows the
steps from 2. A SIGKILL of the group follows them in the finder's own text: the lock and the plugin processes
the kill left, then the commands it prints. A second path terminates the orphans instead (`--terminate`, then
`pulumi refresh --clear-pending-creates`); a third is a plain re-run, which also mends what a kill can tear
in the file backend (an empty metadata sidecar, after which every command fails), as troubleshooting says.

Two more cases pin what a wait that gives up does: with the engine listening it terminates its job; after the
engine was SIGKILLed the dynamic provider host lives on and its wait still times out, the native plugin leaves
at once, and either way the job is left running.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import (
    alive,
    all_jobs,
    jobs_program,
    live,
    make_stack,
    plugin_processes,
    popen,
    state_job_ids,
)
from .front_ends import FRONT_ENDS, FrontEnd
from .pulumi_cli import Stack

pytestmark = pytest.mark.cli

JOBS = 6
# The finder as users run it: the console script installed beside this interpreter.
ORPHANS = str(Path(sys.executable).parent / "modelarts-orphans")
SLOW_START = {
    "creating_seconds": 1.5,
    "pending_seconds": 1.5,
    "running_seconds": 600,
    "terminating_seconds": 0.2,
}


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
    if sig == signal.SIGKILL:
        mend_torn_sidecars(stack)
    return out


def mend_torn_sidecars(stack: Stack) -> None:
    """docs/troubleshooting.md's step for a kill that tore a sidecar of the file backend (Pulumi writes a
    `.attrs` file beside each state file in place, not atomically): delete the empty ones."""
    backend = stack.state_dir / "backend" / ".pulumi"
    subprocess.run(["find", str(backend), "-name", "*.attrs", "-empty", "-delete"], check=True, timeout=30)


def finder_json(stack: Stack, export: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """The finder's JSON report on an export already written."""
    finder = subprocess.run(
        [ORPHANS, "--stack-export", str(export), "--json", *extra],
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finder.returncode in (0, 3), finder.stderr
    report: dict[str, Any] = json.loads(finder.stdout)
    return finder.returncode, report


def run_orphans(stack: Stack, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """The finder on the state as it is now, written where docs/troubleshooting.md has `pulumi stack export
    --file state.json` write it (the checkpoint, which is what that prints: pulumi_cli.py; the command itself
    runs in test_sigkill_recovery_in_the_finders_words)."""
    export = tmp_path / "state.json"
    export.write_text(json.dumps(stack.export()))
    return finder_json(stack, export, *extra)


def orphans_left(stack: Stack, tmp_path: Path) -> list[dict[str, Any]]:
    """What the finder reports once a recovery is done (the state as it is now, beside the one recovered)."""
    export = tmp_path / "state-now.json"
    export.write_text(json.dumps(stack.export()))
    _code, report = finder_json(stack, export)
    orphans: list[dict[str, Any]] = report["orphans"]
    return orphans


def check_nothing_unseen(
    stack: Stack, emu: EmulatorProcess, report: dict[str, Any], front_end: FrontEnd
) -> None:
    known = set(state_job_ids(stack, front_end)) | {o["id"] for o in report["orphans"]}
    unseen = [j["metadata"]["id"] for j in live(all_jobs(emu)) if j["metadata"]["id"] not in known]
    assert not unseen, f"running jobs neither in the state nor reported: {unseen}"


def stack_locks(tmp_path: Path) -> list[Path]:
    """The lock files in the stack's backend (make_stack's, under tmp_path)."""
    return sorted((tmp_path / "backend" / ".pulumi" / "locks").rglob("*.json"))


def finish(stack: Stack, emu: EmulatorProcess, front_end: FrontEnd, *, destroy: bool = True) -> None:
    """`pulumi up`: exactly the declared jobs run, all in the state. Then, with destroy, `pulumi destroy`: the
    recovered state is one destroy can clear (shown for adopted jobs; once the state holds every live job,
    as the up's checks show, any other destroy is the ordinary one test_story.py proves)."""
    stack.up()
    jobs = all_jobs(emu)
    running = live(jobs)
    assert sorted(j["metadata"]["id"] for j in running) == sorted(state_job_ids(stack, front_end))
    assert len(running) == JOBS
    if destroy:
        stack.destroy()
        assert live(all_jobs(emu)) == []


# A SIGKILL of the whole group, adopted: test_sigkill_recovery_in_the_finders_words.
CASES = {
    "sigint-group": (signal.SIGINT, True),
    "sigint-cli-only": (signal.SIGINT, False),
}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_interrupted_up_recovers_by_adopting_orphans(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], case: str, front_end: FrontEnd
) -> None:
    sig, whole_group = CASES[case]
    emu = emulator_factory(**SLOW_START)
    stack = make_stack(tmp_path, emu, jobs_program(JOBS, wait_for="running"), front_end=front_end)
    out = interrupted_up(stack, emu, sig, whole_group=whole_group)
    if front_end.native and not whole_group:
        # Ctrl-C to the CLI alone: the engine cancels the plugin's waits, which say so and end their jobs.
        assert "when the deployment was cancelled" in out and "the job was terminated" in out, out

    # Ctrl-C lets the update end as it chooses, its lock released: no `pulumi cancel` is needed.
    assert stack_locks(tmp_path) == []
    before = all_jobs(emu)
    code, report = run_orphans(stack, tmp_path)
    check_nothing_unseen(stack, emu, report, front_end)
    print(
        case,
        "state",
        len(state_job_ids(stack, front_end)),
        "orphans",
        len(report["orphans"]),
        "jobs",
        len(all_jobs(emu)),
    )
    if report["orphans"]:
        assert code == 3
        adopted = tmp_path / "adopted.json"
        # The state is as the export above has it: the finder adopts from that same file.
        finder_json(stack, tmp_path / "state.json", "--adopt-to", str(adopted))
        stack.run("stack", "import", "--file", str(adopted))
        stack.refresh()
        assert set(state_job_ids(stack, front_end)) >= {o["id"] for o in report["orphans"]}
        assert orphans_left(stack, tmp_path) == []
    finish(stack, emu, front_end, destroy=False)  # a destroy of adopted jobs: the finder's-words test
    if front_end.native and sig == signal.SIGINT:
        # Ctrl-C cancels the native plugin's waits: it terminated every job it had started (nothing is left to
        # adopt), and the re-run created the declared jobs afresh.
        assert report["orphans"] == [] and before and live(before) == []
        assert len(all_jobs(emu)) == len(before) + JOBS
    else:
        # Adopting means no job was created twice.
        assert len(all_jobs(emu)) == JOBS


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_sigkill_then_a_plain_rerun_ends_with_exactly_the_declared_jobs(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    emu = emulator_factory(**SLOW_START)
    stack = make_stack(tmp_path, emu, jobs_program(JOBS, wait_for="running"), front_end=front_end)
    interrupted_up(stack, emu, signal.SIGKILL, whole_group=True)
    # A kill can land while Pulumi writes the stack file's sidecar, leaving it empty: every command on the
    # stack then fails, until the step troubleshooting gives deletes it.
    sidecar = stack.state_dir / "backend" / ".pulumi" / "stacks" / "rel" / "test.json.attrs"
    assert sidecar.is_file()
    sidecar.write_bytes(b"")
    torn = stack.run("cancel", "--yes", check=False)
    assert torn.returncode != 0 and "error: failed to load checkpoint: EOF" in torn.stderr, torn.stderr
    mend_torn_sidecars(stack)
    assert not sidecar.exists()
    stack.run("cancel", "--yes")  # the killed update's lock
    # No finder: the next up re-creates the pending creates under the names chosen before, and adopts the
    # jobs the killed run had already created (the name is the create's idempotency key).
    finish(stack, emu, front_end, destroy=False)
    assert len(all_jobs(emu)) == JOBS


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_sigkill_then_terminate_orphans(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    emu = emulator_factory(**SLOW_START)
    stack = make_stack(tmp_path, emu, jobs_program(JOBS, wait_for="running"), front_end=front_end)
    interrupted_up(stack, emu, signal.SIGKILL, whole_group=True)
    stack.run("cancel", "--yes")
    code, report = run_orphans(stack, tmp_path, "--terminate")
    assert code == 3 and report["orphans"], "a SIGKILL mid-create must leave jobs only the finder knows"
    assert sorted(report["terminated"]) == sorted(o["id"] for o in report["orphans"])
    stack.refresh("--clear-pending-creates")
    assert not stack.export()["deployment"].get("pending_operations")
    finish(stack, emu, front_end, destroy=False)


def wait_until_gone(pids: list[int], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still running after {seconds} s: {pids}"
        time.sleep(0.1)


def finder_text(stack: Stack, export: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """The finder as docs/troubleshooting.md runs it: text output, in the project directory, the stack's
    environment."""
    return subprocess.run(
        [ORPHANS, "--stack-export", str(export), *extra],
        cwd=stack.workdir,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_sigkill_recovery_in_the_finders_words(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], front_end: FrontEnd
) -> None:
    """What a SIGKILLed `up` leaves (its lock, its plugins), and the finder's text leading out of it."""
    emu = emulator_factory(**SLOW_START)
    stack = make_stack(tmp_path, emu, jobs_program(JOBS, wait_for="running"), front_end=front_end)
    interrupted_up(stack, emu, signal.SIGKILL, whole_group=True)

    # The lock stays behind: `stack export` ignores it, `stack import` refuses to run.
    locks = stack_locks(tmp_path)
    assert [lock.parent.relative_to(tmp_path / "backend") for lock in locks] == [
        Path(".pulumi/locks/organization/rel/test")
    ]
    export = tmp_path / "state.json"
    stack.run("stack", "export", "--file", str(export))
    blocked = stack.run("stack", "import", "--file", str(export), check=False)
    assert blocked.returncode != 0 and "currently locked" in blocked.stderr

    if front_end.native:
        # The native plugin leaves by itself once its engine is gone; the language host and program stay.
        wait_until_gone(plugin_processes(tmp_path, b"pulumi-resource-modelarts"), 15)
    leftovers = sorted(pid for pid in plugin_processes(tmp_path) if alive(pid))
    assert leftovers, "a SIGKILLed up leaves its plugins running"
    found = finder_text(stack, export)
    print(found.stdout)
    assert found.returncode == 3, found.stdout + found.stderr
    lines = found.stdout.splitlines()
    assert lines[0].startswith(f"The stack is locked: {locks[0]} (pulumi pid "), found.stdout
    assert "no longer runs" in lines[1] and "`pulumi cancel --yes`" in lines[1]
    [kill_line] = [line for line in lines if "end them when convenient: kill " in line]
    kill_command = kill_line.split(": ", 1)[1]
    assert sorted(int(pid) for pid in kill_command.split()[1:]) == leftovers
    assert "language host: " in found.stdout
    assert ("provider: " in found.stdout) is not front_end.native, found.stdout

    stack.run("cancel", "--yes")
    assert not locks[0].exists()
    # Its JSON report: every running job is in the state or among the orphans.
    code, report = finder_json(stack, export)
    assert code == 3 and report["orphans"], "a SIGKILL mid-create must leave jobs only the finder knows"
    check_nothing_unseen(stack, emu, report, front_end)
    adopted = tmp_path / "adopted.json"
    adopt = finder_text(stack, export, "--adopt-to", str(adopted))
    assert adopt.returncode == 0, adopt.stdout + adopt.stderr
    assert "locked" not in adopt.stdout
    steps = [line.strip() for line in adopt.stdout.splitlines() if line.startswith("  pulumi ")]
    assert steps == [f"pulumi stack import --file {adopted}", "pulumi refresh --yes", "pulumi up --yes"]
    adopted_json = tmp_path / "adopted-json.json"
    code, _ = finder_json(stack, export, "--adopt-to", str(adopted_json))
    assert code == 0 and json.loads(adopted_json.read_text()) == json.loads(adopted.read_text())

    # The kill the finder printed ends every leftover plugin.
    subprocess.run(["bash", "-c", kill_command], check=True, timeout=30)
    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in leftovers):
        assert time.monotonic() < deadline, [pid for pid in leftovers if alive(pid)]
        time.sleep(0.1)

    for step in steps[:-1]:
        stack.run(*shlex.split(step)[1:])
    # The orphans joined the state, and the finder finds none left.
    assert set(state_job_ids(stack, front_end)) >= {o["id"] for o in report["orphans"]}
    assert orphans_left(stack, tmp_path) == []
    finish(stack, emu, front_end)  # pulumi up, then destroy
    # Adopting means no job was created twice.
    assert len(all_jobs(emu)) == JOBS


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


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_timed_out_wait_terminates_its_job_while_the_engine_listens(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    stack = make_stack(tmp_path, emulator, PENDING_FOR_EVER % 2, front_end=front_end)
    up = stack.up(check=False)
    assert up.returncode != 0
    assert "did not reach running within 2.0s" in up.stdout + up.stderr
    jobs = all_jobs(emulator)
    assert len(jobs) == 2 and live(jobs) == []
    assert emulator.stats()["by_operation"].get("terminate") == 2


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_provider_whose_engine_was_killed_never_terminates_the_job_it_waited_for(
    tmp_path: Path, emulator: EmulatorProcess, front_end: FrontEnd
) -> None:
    timeout = 3.0
    stack = make_stack(tmp_path, emulator, PENDING_FOR_EVER % timeout, front_end=front_end)
    proc = popen(stack, "up", "--yes", "--skip-preview")
    deadline = time.monotonic() + 60
    while len(all_jobs(emulator)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "up ended before the jobs appeared"
        time.sleep(0.05)
    created = time.monotonic()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    # The provider process: the dynamic provider host, or the native plugin.
    command = b"pulumi-resource-modelarts" if front_end.native else b"pulumi.dynamic"
    providers = plugin_processes(tmp_path, command)
    if front_end.native:
        # The native plugin sees its engine gone and leaves at once: its waits just end.
        wait_until_gone(providers, 15)
    else:
        assert providers, "the provider host outlives its engine"
    # The provider's waits time out now (or ended), with nobody listening: the jobs are left for
    # modelarts-orphans.
    time.sleep(max(0.0, created + timeout + 3.0 - time.monotonic()))
    if not front_end.native:
        assert set(plugin_processes(tmp_path, command)) == set(providers), "the provider is still there"
    jobs = all_jobs(emulator)
    assert [j["status"]["phase"] for j in jobs] == ["Pending", "Pending"]
    assert "terminate" not in emulator.stats()["by_operation"]
