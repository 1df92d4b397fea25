"""The orphan finder against a real emulator: what the export says (``stack_export``), what a killed
pulumi left on this machine (``leftovers``), and the command line (``orphans``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pulumi.provider.experimental.provider import DiffRequest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.frontends import plugin
from pulumi_modelarts.frontends.native_values import property_map
from pulumi_modelarts.tools import leftovers, orphans, stack_export
from pulumi_modelarts.wire.models import TrainingJob

from ..plugin_support import run
from ..stack_exports import TYPE, URN, export
from ..support import minimal_job


def create(emu: EmulatorProcess, name: str) -> str:
    body = minimal_job(kind="job", metadata={"name": name})
    answer = httpx.post(emu.api_url("/training-jobs"), json=body, auth=emu.auth(), timeout=10)
    return str(answer.raise_for_status().json()["metadata"]["id"])


def test_pending_creates_and_state_ids() -> None:
    doc = export("train-abc123", ["a", "b"])
    assert stack_export.pending_creates(doc) == [stack_export.PendingCreate(URN, "train-abc123")]
    assert stack_export.state_job_ids(doc) == {"a", "b"}


def test_the_native_plugins_jobs_count_too() -> None:
    native = "modelarts:index:TrainingJob"
    doc = json.loads(json.dumps(export("train-abc123", ["a", "b"])).replace(TYPE, native))
    assert stack_export.pending_creates(doc) == [
        stack_export.PendingCreate(f"urn:pulumi:dev::proj::{native}::train", "train-abc123")
    ]
    assert stack_export.state_job_ids(doc) == {"a", "b"}
    other = json.loads(json.dumps(doc).replace(native, "aws:s3:Bucket"))
    assert stack_export.pending_creates(other) == [] and stack_export.state_job_ids(other) == set()


def test_an_adopted_native_job_holds_the_declared_inputs_under_the_schemas_name() -> None:
    # The native plugin's state holds its schema's names: its pending create's inputs are camelCase, and
    # the adopted outputs must give them as declaredInputs for the next diff to find nothing to change.
    native = "modelarts:index:TrainingJob"
    text = json.dumps(export("train-abc123", []))
    doc = json.loads(text.replace(TYPE, native).replace("wait_for", "waitFor"))
    job = TrainingJob.model_validate({"metadata": {"id": "j-1", "name": "train-abc123"}})
    urn = doc["deployment"]["pending_operations"][0]["resource"]["urn"]
    adopted = stack_export.adopted_export(doc, [stack_export.Orphan(urn, job)])
    [resource] = adopted["deployment"]["resources"]
    declared = {"metadata": {"name": "train-abc123"}, "waitFor": "none"}
    assert resource["outputs"]["declaredInputs"] == declared and "declared_inputs" not in resource["outputs"]
    state = property_map({k: v for k, v in resource["outputs"].items() if k != "__provider"})
    request = DiffRequest(resource["urn"], "j-1", state, property_map(declared), [])
    answer = run(plugin.ModelArtsProvider().diff(request))
    assert answer.changes is False


@pytest.fixture
def env(emulator: EmulatorProcess, monkeypatch: pytest.MonkeyPatch) -> EmulatorProcess:
    for name, value in emulator.provider_env().items():
        monkeypatch.setenv(name, value)
    return emulator


def test_finds_lists_adopts_and_terminates(env: EmulatorProcess, tmp_path: Path, capsys: Any) -> None:
    orphan_id = create(env, "train-abc123")
    create(env, "train-abc1234")  # a longer name that "like" also matches: not ours
    known = create(env, "other-zzz999")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("train-abc123", [known])))

    # Writing the adoption file is the success of this step: exit 0 and the commands that follow it.
    assert orphans.main(["--stack-export", str(path), "--adopt-to", str(tmp_path / "adopted.json")]) == 0
    text = capsys.readouterr().out
    assert orphan_id in text and "train-abc123" in text and URN in text
    assert f"pulumi stack import --file {tmp_path / 'adopted.json'}\n" in text
    assert "pulumi refresh --yes\n" in text
    assert "run this command again" not in text
    adopted = json.loads((tmp_path / "adopted.json").read_text())["deployment"]
    [resource] = [r for r in adopted["resources"] if r["urn"] == URN]
    assert resource["id"] == orphan_id
    assert resource["outputs"]["__provider"] == {"ciphertext": "v1:opaque"}  # copied, never opened
    assert resource["outputs"]["declared_inputs"] == {
        "metadata": {"name": "train-abc123"},
        "wait_for": "none",
    }
    assert [p["type"] for p in adopted["pending_operations"]] == ["updating"]

    assert orphans.main(["--stack-export", str(path), "--terminate", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["terminated"] == [orphan_id]
    phase = httpx.get(env.api_url(f"/training-jobs/{orphan_id}"), auth=env.auth(), timeout=10).json()
    assert phase["status"]["phase"] in ("Terminating", "Terminated")


def test_nothing_orphaned_and_bad_files(env: EmulatorProcess, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("never-created", [])))
    assert orphans.main(["--stack-export", str(path)]) == 0
    assert "no orphaned training jobs" in capsys.readouterr().out
    path.write_text("{not json")
    assert orphans.main(["--stack-export", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_adopting_and_terminating_at_once_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        orphans.main(["--stack-export", "state.json", "--terminate", "--adopt-to", "adopted.json"])
    assert exit_info.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_several_jobs_for_one_pending_create_are_not_all_adopted(
    emulator_factory: Callable[..., EmulatorProcess],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Two jobs of one name (the service refuses that; the emulator accepts it with --no-unique-names):
    # adopting one is a choice.
    env = emulator_factory(unique_names=False)
    for name, value in env.provider_env().items():
        monkeypatch.setenv(name, value)
    first, second = create(env, "train-abc123"), create(env, "train-abc123")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("train-abc123", [])))
    assert orphans.main(["--stack-export", str(path), "--adopt-to", str(tmp_path / "adopted.json")]) == 3
    text = capsys.readouterr().out
    assert first in text and second in text
    assert "Several jobs match one pending create" in text


def test_help_names_the_command_and_its_exit_codes() -> None:
    # The installed console script, as users run it.
    script = Path(sys.executable).parent / "modelarts-orphans"
    proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: modelarts-orphans ")
    assert "pulumi_modelarts" not in proc.stdout
    exit_lines = proc.stdout.split("exit status:\n", 1)[1]
    assert [line.split()[0] for line in exit_lines.splitlines() if line[:3].strip().isdigit()] == [
        "0",
        "3",
        "2",
    ]


def test_stack_identity_and_file_backend_root() -> None:
    assert stack_export.stack_identity(export("x", ["a"])) == ("dev", "proj")
    assert stack_export.stack_identity({"deployment": {"resources": []}}) is None
    assert leftovers.file_backend_root("file:///srv/state?no_tmp_dir=true", "/home/u") == Path("/srv/state")
    assert leftovers.file_backend_root("file://~", "/home/u") == Path("/home/u")
    assert leftovers.file_backend_root("file://~/state/", "/home/u") == Path("/home/u/state")
    assert leftovers.file_backend_root("https://api.pulumi.com", "/home/u") is None
    assert leftovers.file_backend_root("s3://bucket", "/home/u") is None


def write_lock(backend: Path, *, pid: int, host: str) -> Path:
    directory = backend / ".pulumi" / "locks" / "organization" / "proj" / "dev"
    directory.mkdir(parents=True)
    lock = directory / "0b5e0c1e-lock.json"
    body = {"pid": pid, "username": "ci", "hostname": host, "timestamp": "2026-11-23T11:09:14Z"}
    lock.write_text(json.dumps(body))
    (directory / "0b5e0c1e-lock.json.attrs").write_text("{}")  # the blob store's side file: not a lock
    return lock


def test_stack_locks(tmp_path: Path) -> None:
    doc = export("x", [])
    backend = tmp_path / "backend"
    environ = {"PULUMI_BACKEND_URL": f"file://{backend}"}
    assert leftovers.stack_locks(doc, {}) is None  # no backend named: cannot tell
    assert leftovers.stack_locks(doc, {"PULUMI_BACKEND_URL": "https://api.pulumi.com"}) is None
    assert leftovers.stack_locks(doc, environ) == []
    lock = write_lock(backend, pid=os.getpid(), host=socket.gethostname())
    [found] = leftovers.stack_locks(doc, environ) or []
    # This host, but the pid is this test, not a pulumi: the pulumi that took the lock is gone.
    assert (found.path, found.pid, found.user, found.running) == (lock, os.getpid(), "ci", False)
    lock.write_text(json.dumps({"pid": 1, "username": "ci", "hostname": "elsewhere", "timestamp": "t"}))
    [found] = leftovers.stack_locks(doc, environ) or []
    assert found.running is None  # another host: this machine cannot tell


def test_the_lock_comes_first_and_cancel_joins_the_next_steps(
    env: EmulatorProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    backend = tmp_path / "backend"
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{backend}")
    lock = write_lock(backend, pid=os.getpid(), host=socket.gethostname())
    create(env, "train-abc123")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("train-abc123", [])))
    assert orphans.main(["--stack-export", str(path), "--adopt-to", str(tmp_path / "adopted.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"The stack is locked: {lock} (pulumi pid {os.getpid()} of ci@")
    assert "no longer runs" in lines[1]
    steps = [line.split("#")[0].strip() for line in lines if line.startswith("  pulumi ")]
    assert [step.split("  ")[0] for step in steps] == [
        "pulumi cancel --yes",
        f"pulumi stack import --file {tmp_path / 'adopted.json'}",
        "pulumi refresh --yes",
        "pulumi up --yes",
    ]

    # Without a lock (after `pulumi cancel`), the procedure has no cancel step.
    lock.unlink()
    assert orphans.main(["--stack-export", str(path), "--terminate"]) == 3
    out = capsys.readouterr().out
    assert "locked" not in out and "cancel" not in out
    assert "  pulumi refresh --yes --clear-pending-creates\n  pulumi up --yes\n" in out


def fake_process(
    proc: Path, pid: int, ppid: int, name: str, argv: list[str], cwd: Path, *, live: bool = True
) -> None:
    entry = proc / str(pid)
    entry.mkdir(parents=True)
    (entry / "stat").write_text(f"{pid} ({name}) {'S' if live else 'Z'} {ppid} {pid} {pid} 0 -1\n")
    (entry / "cmdline").write_bytes("\0".join(argv).encode() + b"\0")
    if live:  # a zombie's cwd link cannot be read
        (entry / "cwd").symlink_to(cwd)


def test_leftover_processes_are_the_plugins_no_pulumi_runs_above(tmp_path: Path) -> None:
    proc, project, other = tmp_path / "proc", tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    tools = "/opt/pulumi/bin"
    fake_process(proc, 1, 0, "init", ["/sbin/init"], Path("/"))
    # Left by a killed pulumi: reparented to init.
    fake_process(proc, 101, 1, "pulumi-language", [f"{tools}/pulumi-language-python", "127.0.0.1:1"], project)
    fake_process(
        proc, 102, 1, "pulumi-resource", ["/bin/sh", f"{tools}/pulumi-resource-pulumi-python"], project
    )
    fake_process(proc, 103, 102, "python", ["/venv/bin/python", "-u", "-m", "pulumi.dynamic", "x"], project)
    # A pulumi that still runs here, with its own plugins: not leftovers.
    fake_process(proc, 200, 1, "pulumi", ["pulumi", "up"], project)
    fake_process(proc, 201, 200, "pulumi-language", [f"{tools}/pulumi-language-python"], project)
    fake_process(proc, 202, 200, "pulumi-resource", ["/bin/sh", f"{tools}/pulumi-resource-x"], project)
    fake_process(proc, 203, 202, "python", ["python", "-u", "-m", "pulumi.dynamic"], project)
    # Another project's leftover, an unrelated process here, a zombie.
    fake_process(proc, 301, 1, "pulumi-language", [f"{tools}/pulumi-language-python"], other)
    fake_process(proc, 302, 1, "python", ["python", "train.py"], project)
    fake_process(proc, 303, 1, "python", ["python", "-u", "-m", "pulumi.dynamic"], project, live=False)

    found = leftovers.leftover_processes(project, proc)
    assert found is not None
    assert [(p.pid, p.role) for p in found] == [(101, "language host"), (102, "provider"), (103, "provider")]
    assert found[2].command == "/venv/bin/python -u -m pulumi.dynamic x"
    assert leftovers.leftover_processes(project, tmp_path / "no-proc") is None


def test_a_lock_is_held_only_by_a_live_pulumi(tmp_path: Path) -> None:
    doc = export("x", [])
    backend, proc = tmp_path / "backend", tmp_path / "proc"
    environ = {"PULUMI_BACKEND_URL": f"file://{backend}"}
    write_lock(backend, pid=200, host=socket.gethostname())
    fake_process(proc, 200, 1, "pulumi", ["pulumi", "up"], tmp_path)
    [lock] = leftovers.stack_locks(doc, environ, proc) or []
    assert lock.running is True
    # Killed, and not yet reaped by its parent: it no longer runs.
    (proc / "200" / "stat").write_text("200 (pulumi) Z 1 200 200 0 -1\n")
    [lock] = leftovers.stack_locks(doc, environ, proc) or []
    assert lock.running is False
    # Its pid reused by another program.
    (proc / "200" / "stat").write_text("200 (python3) S 1 200 200 0 -1\n")
    [lock] = leftovers.stack_locks(doc, environ, proc) or []
    assert lock.running is False
