"""The policy pack (policy/) through the real CLI: one stack holding a job of each front-end, previewed with
`--policy-pack` and `--policy-pack-config`: every policy passing, then every one violated, as advisory (the
preview succeeds) and as mandatory (it fails), each violation naming its policy, job, path and value. The
policies' logic, case by case, is proven in process (tests/tools/test_policies.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from .both_front_ends import both_stack, declare
from .front_ends import DYNAMIC, NATIVE
from .story import assert_no_traceback, job_args

LAUNCHER = Path(__file__).resolve().parents[2] / "policy" / "pulumi-analyzer-modelarts"

pytestmark = pytest.mark.cli

PASSING: dict[str, dict[str, Any]] = {
    "modelarts-max-nodes": {"maxNodes": 2},
    "modelarts-allowed-flavors": {"flavors": ["modelarts.vm.pnt1.large.eco"]},
    "modelarts-required-tags": {"tags": ["team"]},
    "modelarts-max-wait": {"maxWaitTimeout": "1h"},
    "modelarts-image-registries": {"registries": ["org/"]},
}
FAILING: dict[str, dict[str, Any]] = {
    "modelarts-max-nodes": {"maxNodes": 1},
    "modelarts-allowed-flavors": {"flavors": ["modelarts.vm.gpu.8u"]},
    "modelarts-required-tags": {"tags": ["team", "cost-center"]},
    "modelarts-max-wait": {"maxWaitTimeout": "10m"},
    "modelarts-image-registries": {"registries": ["swr.example.com/"]},
}
# What each violation says, per front-end: the job's property path in that front-end's names, and its value.
EXPECTED = {
    "dynamic": [
        "modelarts-max-nodes: training job 'dyn': spec.resource.node_count is 2, more than maxNodes (1)",
        "modelarts-allowed-flavors: training job 'dyn': spec.resource.flavor_id is "
        "'modelarts.vm.pnt1.large.eco', not one of flavors ['modelarts.vm.gpu.8u']",
        "modelarts-required-tags: training job 'dyn': tags is ['team'] (its keys), missing ['cost-center']",
        "modelarts-max-wait: training job 'dyn': wait_timeout is '20m' (1200s), "
        "longer than maxWaitTimeout (600s)",
        "modelarts-image-registries: training job 'dyn': algorithm.engine.image_url is 'org/train:1.0', "
        "which starts with none of registries ['swr.example.com/']",
    ],
    "native": [
        "modelarts-max-nodes: training job 'nat': spec.resource.nodeCount is 2, more than maxNodes (1)",
        "modelarts-allowed-flavors: training job 'nat': spec.resource.flavorId is "
        "'modelarts.vm.pnt1.large.eco', not one of flavors ['modelarts.vm.gpu.8u']",
        "modelarts-required-tags: training job 'nat': tags is ['team'] (its keys), missing ['cost-center']",
        "modelarts-max-wait: training job 'nat': waitTimeout is '20m' (1200s), "
        "longer than maxWaitTimeout (600s)",
        "modelarts-image-registries: training job 'nat': algorithm.engine.imageUrl is 'org/train:1.0', "
        "which starts with none of registries ['swr.example.com/']",
    ],
}


def _one_line(text: str) -> str:
    """The CLI wraps nothing but indents; joining lines keeps a long message findable whatever the width."""
    return re.sub(r"\s*\n\s*", " ", text)


def test_the_pack_judges_jobs_of_both_front_ends(
    tmp_path: Path, emulator: EmulatorProcess, policy_python: Path
) -> None:
    stack = both_stack(tmp_path, emulator)
    # The pack in its own environment (tests/policy_env.py), started as a program by the CLI.
    stack.env["MODELARTS_POLICY_PYTHON"] = str(policy_python)
    args = job_args(node_count=2, tags={"team": "vision"}, wait_timeout="20m")
    declare(stack, {"dyn": (DYNAMIC, args), "nat": (NATIVE, args)})

    def preview(name: str, config: dict[str, dict[str, Any]], *, check: bool) -> tuple[int, str]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(config))
        proc = stack.preview("--policy-pack", str(LAUNCHER), "--policy-pack-config", str(path), check=check)
        assert_no_traceback(proc.stdout + proc.stderr)
        return proc.returncode, _one_line(proc.stdout + proc.stderr)

    code, out = preview("passing", PASSING, check=True)
    assert "modelarts-training-jobs" in out, out  # the pack ran
    assert "training job '" not in out, out

    code, out = preview("advisory", FAILING, check=True)
    for message in EXPECTED["dynamic"] + EXPECTED["native"]:
        assert message in out, f"{message}\n--- output\n{out}"
    assert "advisory" in out and "mandatory" not in out, out

    mandatory = {name: {**settings, "enforcementLevel": "mandatory"} for name, settings in FAILING.items()}
    code, out = preview("mandatory", mandatory, check=False)
    assert code != 0, out
    for message in EXPECTED["dynamic"] + EXPECTED["native"]:
        assert message in out, f"{message}\n--- output\n{out}"
    assert "mandatory" in out, out
