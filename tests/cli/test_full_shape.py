"""A job declared with fields beyond the seed pages, through the real CLI.

The emulator answers with more than was asked (its own `job_template` annotation, `spec.runtime_type`,
flavor details, SDK fields echoed back): none of it may show as a change, before or after a refresh.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .cli_helpers import make_stack

pytestmark = pytest.mark.cli

PROGRAM = textwrap.dedent(
    """
    import pulumi
    from pulumi_modelarts import TrainingJob

    job = TrainingJob(
        "full",
        metadata={"description": "fields beyond the seed pages",
                  "annotations": {"fault-tolerance/job-retry-num": "2"}},
        algorithm={
            "engine": {"engine_name": "PyTorch", "engine_version": "pytorch_2.1.0-cuda_12.1-py_3.10",
                       "image_url": "org/trainer:1.0", "install_sys_packages": True},
            "command": "python train.py",
            "inputs": [{"name": "data", "access_method": "parameter",
                        "remote": {"obs": {"obs_url": "/bucket/data/"}}}],
            "outputs": [{"name": "model", "access_method": "parameter",
                         "remote": {"obs": {"obs_url": "/bucket/model/"}}}],
        },
        spec={
            "resource": {"flavor_id": "modelarts.vm.cpu.2u", "node_count": 1},
            "runtime_type": "production",
            "volumes": [{"obs": {"obs_path": "/bucket/cache/", "local_path": "/cache"}}],
        },
        wait_for="pending",
    )
    pulumi.export("runtime_type", job.spec.apply(lambda s: s.get("runtime_type")))
    pulumi.export("annotations", job.metadata.apply(lambda m: m.get("annotations")))
    """
)


def test_a_job_with_the_full_shape_goes_up_and_never_drifts(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess]
) -> None:
    emu = emulator_factory()
    stack = make_stack(tmp_path, emu, PROGRAM, name="full")
    stack.run("up", "--yes", "--skip-preview")
    outputs = stack.outputs()
    assert outputs["runtime_type"] == "production"
    # The service adds an annotation of its own; the declared one is kept beside it.
    assert outputs["annotations"]["fault-tolerance/job-retry-num"] == "2"
    assert "job_template" in outputs["annotations"]
    stack.run("preview", "--expect-no-changes")
    stack.run("refresh", "--yes", "--expect-no-changes")
    stack.run("preview", "--expect-no-changes")
    stack.run("destroy", "--yes")
