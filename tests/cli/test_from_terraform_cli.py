"""The move from Terraform through the real `pulumi` CLI: two running jobs a Terraform state manages (with a
resource of another type beside them), the state turned into an import file by `modelarts-from-terraform`,
`pulumi import --file` with the native provider writing the program, and a preview of that program finding
nothing to change. Two `pulumi` runs: the import and the preview. No job is created, stopped or deleted.

The program is YAML: the Python language host built here (docs/development.md) predates the protocol call
that writes a program (`pulumi import --out` answers "GenerateProgram not implemented" for a Python project);
the YAML host has it, and takes the same import file and the same plugin."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..support import emulator_env
from .front_ends import YAML
from .pulumi_cli import Stack, pulumi_env
from .story import POLL_ENV, job_args

pytestmark = pytest.mark.cli

REPO = Path(__file__).resolve().parents[2]
TERRAFORM_STATE = REPO / "tests" / "data" / "terraform" / "terraform.tfstate"
JOB = "huaweicloud_modelarts_training_job"


def running_jobs(emu: EmulatorProcess, names: list[str]) -> list[str]:
    """Jobs started straight in the emulator (as Terraform would have), running 10 minutes; their ids."""
    ids = []
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        for name in names:
            args = job_args(f"{name}, started by Terraform")
            body = {"kind": "job", **args, "metadata": {**args["metadata"], "name": name}}
            answer = http.post(emu.api_url("/training-jobs"), json=body)
            ids.append(str(answer.raise_for_status().json()["metadata"]["id"]))
    return ids


def terraform_state(ids: list[str]) -> dict[str, Any]:
    """The fixture state cut to its `nightly` jobs (count = 2), holding these ids, and its OBS bucket."""
    state: dict[str, Any] = json.loads(TERRAFORM_STATE.read_text())
    kept = []
    for resource in state["resources"]:
        if resource["type"] == "huaweicloud_obs_bucket":
            kept.append(resource)
        elif resource["type"] == JOB and resource["name"] == "nightly" and "module" not in resource:
            resource = copy.deepcopy(resource)
            for instance, job_id in zip(resource["instances"], ids, strict=True):
                instance["attributes"]["id"] = job_id
            kept.append(resource)
    state["resources"] = kept
    return state


def test_jobs_move_from_a_terraform_state_and_the_next_preview_is_empty(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    ids = running_jobs(emulator, ["nightly-0", "nightly-1"])
    state_file = tmp_path / "terraform.tfstate"
    state_file.write_text(json.dumps(terraform_state(ids), indent=2))
    import_file = tmp_path / "import.json"
    # The command as installed runs this module's main(); the tree under test comes first on the path.
    path = os.pathsep.join([str(REPO / "provider"), os.environ.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "pulumi_modelarts.tools.from_terraform", str(state_file)]
    converted = subprocess.run(
        [*command, "-o", str(import_file)],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert converted.returncode == 0, converted.stderr
    assert "skipped 1 other resource instance(s): huaweicloud_obs_bucket 1" in converted.stderr
    expected = {"nightly-0": ids[0], "nightly-1": ids[1]}
    document = json.loads(import_file.read_text())
    assert {r["name"]: r["id"] for r in document["resources"]} == expected
    emulator.reset_stats()

    workdir = tmp_path / "project"
    workdir.mkdir()
    (workdir / "Pulumi.yaml").write_text(f"name: fromtf\nruntime: yaml\n{YAML.project_yaml()}")
    (workdir / "Main.yaml").write_text(
        "# Replaced by the program `pulumi import --out` writes.\nresources: {}\n"
    )
    extra = {**POLL_ENV, **emulator_env(emulator)}
    stack = Stack(workdir, tmp_path / "state", env=pulumi_env(tmp_path / "state", extra)).init()
    # --out is opened (emptied) before the import runs the language host: never the program itself.
    generated = tmp_path / "generated.yaml"
    imported = stack.run("import", "--file", str(import_file), "--yes", "--out", str(generated))
    assert "failed to validate" not in imported.stdout, imported.stdout  # the inputs read pass the check
    code = generated.read_text()
    (workdir / "Main.yaml").write_text(code)
    assert code.count("type: modelarts:TrainingJob") == 2, code  # YAML writes the short token
    adopted = {r["urn"].rsplit("::", 1)[-1]: r for r in stack.resources(YAML.type_token)}
    assert {name: r["id"] for name, r in adopted.items()} == expected
    assert all(r.get("protect") for r in adopted.values())  # pulumi import protects what it adopts

    # The program pulumi wrote declares the jobs as they are: nothing to change.
    stack.preview("--expect-no-changes")
    calls = emulator.stats()["by_operation"]
    assert not {"create", "terminate", "delete"} & calls.keys(), calls
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        for job_id in ids:
            answer = http.get(emulator.api_url(f"/training-jobs/{job_id}")).raise_for_status().json()
            assert answer["status"]["phase"] == "Running", answer["status"]
