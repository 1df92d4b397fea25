"""What the examples' docstrings say about their stack outputs holds with the real CLI.

`examples/fault-tolerance/` exports values read from the job's status. A plain `pulumi refresh` updates the
job's outputs in the state but leaves the stack outputs as the program last computed them; `pulumi refresh
--run-program` and `pulumi up` recompute them. The exported phase shows it: the emulator moves the job from
Running to Completed on its own.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .pulumi_cli import REPO, Stack, pulumi_env
from .story import POLL_ENV, emulator_client

pytestmark = pytest.mark.cli

EXAMPLE = REPO / "examples" / "fault-tolerance"


def test_fault_tolerance_docstring_says_when_the_stack_outputs_change() -> None:
    doc = " ".join(EXAMPLE.joinpath("__main__.py").read_text().split('"""')[1].split())
    assert "brings it up to date" not in doc
    assert "`pulumi refresh` updates the job's own outputs in the state but not the stack outputs" in doc
    assert "change at the next `pulumi up` (or `pulumi refresh --run-program`)" in doc


def test_refresh_leaves_stack_outputs_until_the_program_runs(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory(running_seconds=3)
    shutil.copytree(EXAMPLE, tmp_path / "project", ignore=shutil.ignore_patterns("__pycache__"))
    env = pulumi_env(tmp_path / "state", {**POLL_ENV, **emulator_env(emu)})
    stack = Stack(tmp_path / "project", tmp_path / "state", env=env).init()

    stack.up()  # wait_for="running"
    assert stack.outputs()["phase"] == "Running"
    [job] = stack.resources("modelarts:TrainingJob")
    with emulator_client(emu) as client:
        deadline = time.monotonic() + 60
        while client.get_job(job["id"]).phase != "Completed":  # the emulator ends the job on its own
            assert time.monotonic() < deadline
            time.sleep(0.2)

    stack.refresh()
    [job] = stack.resources("modelarts:TrainingJob")
    assert job["outputs"]["phase"] == "Completed"
    assert stack.outputs()["phase"] == "Running"  # the stack output is what the program computed

    stack.refresh("--run-program")
    assert stack.outputs()["phase"] == "Completed"
    stack.destroy()
