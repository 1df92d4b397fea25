"""Failures as a user meets them through the real CLI: a dead endpoint, a `get()` of a job that does not
exist, errors that begin with what went wrong."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import jobs_program, make_stack

pytestmark = pytest.mark.cli

GRPC_PREFIX = "Exception calling application"


def dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_refresh_against_a_dead_endpoint_fails_fast_and_names_it(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    stack = make_stack(tmp_path, emulator, jobs_program(1, wait_for="none"))
    stack.up()
    dead = f"http://127.0.0.1:{dead_port()}"
    started = time.monotonic()
    result = stack.run("refresh", "--yes", "--skip-preview", check=False, HW_MODELARTS_ENDPOINT=dead)
    seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    print(f"refresh against a dead endpoint: {seconds:.1f}s")
    assert result.returncode != 0, output
    assert f"no answer from ModelArts at {dead} (could not connect: connection refused)" in output, output
    assert "after 2 attempts" in output, output
    assert GRPC_PREFIX not in output and "Traceback" not in output, output
    assert emulator.secret_key not in output and emulator.access_key not in output
    assert seconds < 30, output  # ten attempts with growing pauses took 87 s


def test_get_of_a_job_that_does_not_exist_fails_up_naming_the_id(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    program = (
        "import pulumi\n"
        "from pulumi_modelarts import TrainingJob\n"
        f"job = TrainingJob.get('found', {missing!r})\n"
        "pulumi.export('job_name', job.metadata.apply(lambda m: m['name']))\n"
    )
    stack = make_stack(tmp_path, emulator, program)
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert f"training job {missing} does not exist, so it cannot be read" in output, output
    assert GRPC_PREFIX not in output and "Traceback" not in output, output


def test_a_failed_up_says_why_the_job_failed(tmp_path: Path, emulator: EmulatorProcess) -> None:
    program = (
        "from pulumi_modelarts import TrainingJob\n"
        "TrainingJob('trainer',\n"
        "    metadata={'annotations': {'emulator/fail-after-seconds': '0.2',\n"
        "        'emulator/running-seconds': '5', 'emulator/exit-code': '137',\n"
        "        'emulator/failure-message': 'CUDA out of memory'}},\n"
        "    algorithm={'engine': {'image_url': 'org/trainer:1.0'}, 'command': 'python train.py'},\n"
        "    spec={'resource': {'flavor_id': 'modelarts.vm.cpu.2u', 'node_count': 1}},\n"
        "    wait_for='completed')\n"
    )
    stack = make_stack(tmp_path, emulator, program)
    result = stack.up(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "ended Failed." in output and "exit code 137" in output, output
    assert "log lines of task worker-0:" in output, output
    assert "| RuntimeError: CUDA out of memory" in output, output
    assert "recent error events (2):" in output, output
    assert "Training job failed: CUDA out of memory" in output, output
    assert "|   File " in output, output  # the log keeps its indentation
    assert GRPC_PREFIX not in output, output
    assert [line for line in output.splitlines() if "Traceback" in line and "| Traceback" not in line] == []
    assert emulator.secret_key not in output and emulator.access_key not in output


def test_preview_checks_the_settings_and_hints_at_near_miss_keys(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    stack = make_stack(tmp_path, emulator, jobs_program(1, wait_for="none"), env={"HW_PROJECT_ID": ""})
    stack.config("modelarts:project_id", emulator.project_id)
    emulator.reset_stats()
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "resource 'job-0' has a problem: ModelArts settings are incomplete or unusable." in output, output
    # The project can be looked up by region or project name now: the message names all three places.
    assert (
        "Missing: the project id, or a region or project name to look it up by "
        "(looked in config modelarts:projectId, $HW_PROJECT_ID"
    ) in output, output
    assert "config modelarts:region" in output and "config modelarts:projectName" in output, output
    hint = "config modelarts:project_id is set but not read: did you mean modelarts:projectId?"
    assert hint in output, output
    assert emulator.project_id not in output and emulator.secret_key not in output, output
    assert GRPC_PREFIX not in output and "Traceback" not in output, output
    assert emulator.stats()["requests"] == 0, "checking settings must not call the API"

    stack.config("modelarts:projectId", emulator.project_id)
    stack.preview()
