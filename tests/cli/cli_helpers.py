"""Shared pieces for the reliability CLI tests: a stack of N training jobs pointed at an emulator."""

from __future__ import annotations

import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import DYNAMIC, FrontEnd
from .pulumi_cli import Stack, new_stack, pulumi_argv


def jobs_program(count: int, *, wait_for: str = "running", extra: str = "") -> str:
    """A program declaring `count` training jobs job-0 .. job-N-1 (count from config `jobs` if set)."""
    return textwrap.dedent(
        f"""
        import pulumi
        from pulumi_modelarts import TrainingJob

        count = pulumi.Config().get_int("jobs") or {count}
        jobs = [
            TrainingJob(
                f"job-{{i}}",
                metadata={{"description": f"reliability job {{i}}"}},
                algorithm={{
                    "engine": {{"image_url": "org/trainer:1.0"}},
                    "command": "python train.py",{extra}
                }},
                spec={{"resource": {{"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1}}}},
                wait_for="{wait_for}",
            )
            for i in range(count)
        ]
        pulumi.export("ids", [j.id for j in jobs])
        """
    )


def make_stack(
    tmp_path: Path,
    emu: EmulatorProcess | None,
    program: str,
    *,
    name: str = "rel",
    env: dict[str, str] | None = None,
    front_end: FrontEnd = DYNAMIC,
) -> Stack:
    """The program (written for the dynamic front-end) as a project of the given front-end, with a stack."""
    extra = {**(emulator_env(emu, "0.05") if emu is not None else {}), **(env or {})}
    return new_stack(
        tmp_path / "prog",
        tmp_path,
        name,
        front_end.program(program),
        extra,
        project_yaml=front_end.project_yaml(),
    )


def all_jobs(emu: EmulatorProcess) -> list[dict[str, Any]]:
    """Every job the emulator holds (signed searches, all pages), with a client that never faults... mostly:

    fault injection applies to searches too, so this retries on its own.
    """
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        jobs: list[dict[str, Any]] = []
        page = 0
        while True:
            for _ in range(30):
                answer = http.post(
                    emu.api_url("/training-job-searches"),
                    json={"offset": page, "limit": 50, "sort_by": "create_time", "order": "asc"},
                )
                if answer.status_code == 200:
                    break
                time.sleep(0.05)
            answer.raise_for_status()
            items = answer.json().get("items") or []
            jobs.extend(items)
            if len(items) < 50:
                return jobs
            page += 1


def state_job_ids(stack: Stack, front_end: FrontEnd = DYNAMIC) -> list[str]:
    return [r["id"] for r in stack.resources(front_end.type_token)]


def live(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [j for j in jobs if j["status"]["phase"] in ("Creating", "Pending", "Running")]


def popen(stack: Stack, *args: str) -> subprocess.Popen[str]:
    """Start a pulumi command without waiting (its own process group, so signals reach only it)."""
    return subprocess.Popen(
        pulumi_argv(*args, "--non-interactive"),
        cwd=stack.workdir,
        env=stack.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen[str], sig: signal.Signals) -> None:
    os.killpg(proc.pid, sig)


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting for its new parent to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def plugin_processes(state_dir: Path, command: bytes = b"") -> list[int]:
    """Live processes started by this test's pulumi commands (their environment names its private backend,
    under state_dir), optionally only those whose command line contains `command`."""
    marker = str(state_dir).rstrip("/").encode() + b"/"
    found = []
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
