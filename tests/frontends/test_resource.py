"""TrainingJob registration under Pulumi mocks: what reaches the engine (no provider method runs here)."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc

from pulumi_modelarts.generated.inputs import TrainingJobAlgorithmArgs, TrainingJobEngineArgs

registered: list[pulumi.runtime.MockResourceArgs] = []


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        registered.append(args)
        return "job-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


@pytest.fixture(autouse=True)
def mocks() -> None:
    registered.clear()
    pulumi.runtime.set_mocks(Mocks(), preview=False)


@pulumi.runtime.test
def test_registration_names_secrets_and_typed_args() -> Any:
    from pulumi_modelarts import TrainingJob

    job = TrainingJob(
        "train",
        algorithm=TrainingJobAlgorithmArgs(
            engine=TrainingJobEngineArgs(image_url="org/img:1"),
            command="python train.py",
            environments={"TOKEN": "hidden"},
        ),
        spec={"resource": {"flavor_id": "f", "node_count": 1}},
        wait_for="running",
    )

    def check(_: Any) -> None:
        (args,) = registered
        assert args.typ == "pulumi-python:dynamic/modelarts:TrainingJob"
        assert args.inputs["name_prefix"] == "train"
        # The secret environments travel encrypted: the SDK reports the enclosing value as secret.
        algorithm = args.inputs["algorithm"]
        assert rpc.is_rpc_secret(algorithm)
        plain = rpc.unwrap_rpc_secret(algorithm)
        assert plain["engine"] == {"image_url": "org/img:1"}
        assert plain["environments"] == {"TOKEN": "hidden"}
        assert not rpc.is_rpc_secret(args.inputs["spec"])
        assert args.inputs["wait_for"] == "running"
        assert "__provider" in args.inputs

    return job.id.apply(check)


@pulumi.runtime.test
def test_without_environments_nothing_is_secret_and_prefix_is_kept() -> Any:
    from pulumi_modelarts import TrainingJob, TrainingJobArgs

    job = TrainingJob("t", TrainingJobArgs(algorithm={"command": "c"}, name_prefix="nightly"))

    def check(_: Any) -> None:
        (args,) = registered
        assert args.inputs["algorithm"] == {"command": "c"}
        assert args.inputs["name_prefix"] == "nightly"

    return job.id.apply(check)


@pulumi.runtime.test
def test_every_secret_input_is_registered_secret() -> Any:
    from pulumi_modelarts import TrainingJob, TrainingJobTaskAlgorithmArgs, TrainingJobTaskArgs
    from pulumi_modelarts.generated.fields import SECRET_INPUTS

    assert set(SECRET_INPUTS) == {"algorithm.environments", "tasks[].algorithm.environments"}
    job = TrainingJob(
        "hetero",
        kind="hetero_job",
        tasks=[
            TrainingJobTaskArgs(
                role="a", algorithm=TrainingJobTaskAlgorithmArgs(environments={"K": "task-secret"})
            ),
            {"role": "b"},
        ],
        # Not known until deployment: marked once it resolves.
        algorithm=pulumi.Output.from_input({"id": "x", "environments": {"T": "late-secret"}}),
    )

    def check(_: Any) -> None:
        (args,) = registered
        tasks = args.inputs["tasks"]
        assert rpc.is_rpc_secret(tasks)
        assert rpc.unwrap_rpc_secret(tasks)[0]["algorithm"]["environments"] == {"K": "task-secret"}
        assert rpc.unwrap_rpc_secret(tasks)[1] == {"role": "b"}
        assert rpc.is_rpc_secret(args.inputs["algorithm"])
        assert rpc.unwrap_rpc_secret(args.inputs["algorithm"])["environments"] == {"T": "late-secret"}
        assert not rpc.is_rpc_secret(args.inputs["kind"])

    return job.id.apply(check)


@pulumi.runtime.test
def test_typed_inputs_register_under_their_wire_names() -> Any:
    from pulumi_modelarts import (
        TrainingJob,
        TrainingJobNodeAffinityArgs,
        TrainingJobNodeSelectorRequirementArgs,
        TrainingJobNodeSelectorTermArgs,
    )

    term = TrainingJobNodeSelectorTermArgs(
        match_expressions=[TrainingJobNodeSelectorRequirementArgs(key="zone", operator="In", values=["a"])]
    )
    job = TrainingJob(
        "affine",
        algorithm={"id": "x"},
        spec={
            "resource": {"pool_id": "p"},
            "schedule_policy": {
                "required_affinity": {
                    "node_affinity": TrainingJobNodeAffinityArgs(node_selector_terms=[term])
                }
            },
        },
    )

    def check(_: Any) -> None:
        (args,) = registered
        affinity = args.inputs["spec"]["schedule_policy"]["required_affinity"]["node_affinity"]
        assert affinity == {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
        }

    return job.id.apply(check)


def test_the_dynamic_package_tells_pulumi_it_has_no_provider_plugin() -> None:
    # Pulumi's Python language host takes any `pulumi-*` distribution for a provider SDK and makes the engine
    # look for its plugin (here `pulumi-resource-modelarts`, the native provider: found on PATH, it draws a
    # warning on every command of a dynamic stack) unless its pulumi-plugin.json says resource: false.
    import importlib.resources
    import json

    from ..cli.pulumi_cli import REPO

    shipped = importlib.resources.files("pulumi_modelarts") / "pulumi-plugin.json"
    assert json.loads(shipped.read_text()) == {"resource": False}
    package_data = re.search(r"^pulumi_modelarts = \[(.*)\]$", (REPO / "pyproject.toml").read_text(), re.M)
    assert package_data and '"pulumi-plugin.json"' in package_data.group(1)


def test_output_annotations_are_resolved_once_not_on_every_registration() -> None:
    # Pulumi calls typing.get_type_hints on the class for every registered resource; strings would be
    # compiled and evaluated each time.
    from pulumi_modelarts.frontends.resource import TrainingJob

    own = inspect.get_annotations(TrainingJob)
    assert own and not any(isinstance(hint, str) for hint in own.values()), own
    assert own["phase"] == pulumi.Output[str]
    assert set(own) >= {"kind", "metadata", "name", "phase", "declared_inputs"}


def test_type_checkers_see_the_job_sections_typed_from_the_response_models(tmp_path: Path) -> None:
    # At run time the outputs are plain dicts; a type checker knows their keys and value types (outputs.py).
    from ..cli.pulumi_cli import REPO

    program = tmp_path / "typed_program.py"
    program.write_text(
        textwrap.dedent(
            """
            import pulumi
            from pulumi_modelarts import TrainingJob

            def use(job: TrainingJob) -> None:
                created: pulumi.Output[int] = job.metadata.apply(lambda m: m.get("create_time", 0))
                flavor = job.spec.apply(lambda s: s["resource"]["flavor_id"])
                reveal_type(flavor)
                job.status.apply(lambda s: s["no_such_key"])
            """
        )
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), str(program)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line or ": note:" in line]
    assert any('Revealed type is "pulumi.output.Output[str]"' in line for line in errors), errors
    assert [line for line in errors if ": error:" in line] == [
        line for line in errors if '"no_such_key"' in line and ": error:" in line
    ], errors
    assert any('"no_such_key"' in line for line in errors), errors
