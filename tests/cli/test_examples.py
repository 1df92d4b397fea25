"""Every example project goes through `pulumi up` and an empty `pulumi preview` against the emulator,
unchanged (copied to a temporary directory; credentials from HW_* variables as a user would set), and
`pulumi destroy` where its state holds something of its own for a delete (DESTROYED).

Each runs through both front-ends: as written (the dynamic provider, `pulumi_modelarts`), and switched to the
native plugin the way docs/native-provider.md tells users to switch: the import becomes
`from pulumi_modelarts_native import TrainingJob` and Pulumi.yaml gains the `plugins: providers` block.
Nothing else changes."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.wire.api import ModelArtsAPI

from ..support import emulator_env
from . import languages
from .front_ends import FRONT_ENDS, NATIVE, PLUGIN_DIR, FrontEnd
from .pulumi_cli import REPO, Stack, pulumi_env
from .story import LIVE_PHASES, POLL_ENV, all_jobs, assert_no_traceback, emulator_client

pytestmark = pytest.mark.cli

EXAMPLES = REPO / "examples"


def _copy_example(name: str, dest: Path, front_end: FrontEnd) -> None:
    if name == "quickstart":
        # The quickstart is the repository's root project: its Pulumi.yaml points `main:` at the example.
        pulumi_yaml = (REPO / "Pulumi.yaml").read_text()
        assert re.search(r"^main: examples/quickstart/?$", pulumi_yaml, re.MULTILINE), pulumi_yaml
        dest.mkdir(parents=True)
        (dest / "Pulumi.yaml").write_text(re.sub(r"^main: .*$", "main: quickstart/", pulumi_yaml, flags=re.M))
        shutil.copytree(EXAMPLES / "quickstart", dest / "quickstart")
    else:
        shutil.copytree(EXAMPLES / name, dest)
    for cache in dest.rglob("__pycache__"):
        shutil.rmtree(cache)
    if front_end.native:
        [program] = dest.rglob("__main__.py")
        program.write_text(front_end.program(program.read_text()))
        project = dest / "Pulumi.yaml"
        project.write_text(project.read_text() + front_end.project_yaml())


def _check_quickstart(client: ModelArtsAPI, outputs: dict[str, Any], state: dict[str, Any]) -> None:
    job = client.get_job(outputs["job_id"])
    assert job.algorithm is not None and job.algorithm.id == "3f5d6706-7b67-408d-8ba0-ec08048c45ed"
    assert outputs["job_name"] == job.name


def _check_custom_image(client: ModelArtsAPI, outputs: dict[str, Any], state: dict[str, Any]) -> None:
    job = client.get_job(outputs["job_id"])
    wire = job.model_dump(mode="json", exclude_none=True)
    assert wire["algorithm"]["engine"]["image_url"] == "my-org/fastseq:1.2"
    assert wire["spec"]["resource"]["pool_id"] == "poolfaf38d76"
    assert wire["spec"]["volumes"][0]["nfs"]["nfs_server_path"] == "192.168.0.82:/"
    assert outputs["log_export_path"] == {"obs_url": "/my-bucket/ddp-demo/logs/"}
    assert outputs["phase"] == "Running" or outputs["phase"] == "Completed"
    # The tags were applied beside the job, and read back as an output.
    assert client.get_tags(outputs["job_id"]) == {"team": "nlp", "cost-center": "research-42"}
    assert outputs["tags"] == {"team": "nlp", "cost-center": "research-42"}
    # The environment variables reached the job, and stay secret in the state.
    assert wire["algorithm"]["environments"]
    [resource] = state.values()
    assert "ciphertext" in resource["outputs"]["environments"]
    assert "ciphertext" in resource["inputs"]["algorithm"]["environments"]  # what the program declared, too
    assert "NCCL_DEBUG" not in str(resource["outputs"]["algorithm"])


def _check_obs_dataset(client: ModelArtsAPI, outputs: dict[str, Any], state: dict[str, Any]) -> None:
    job = client.get_job(outputs["job_id"])
    wire = job.model_dump(mode="json", exclude_none=True)
    parameters = {p["name"]: p.get("value") for p in wire["algorithm"]["parameters"]}
    assert {k: parameters[k] for k in outputs["hyper_parameters"]} == outputs["hyper_parameters"]
    remotes = {i["name"]: i["remote"] for i in wire["algorithm"]["inputs"]}
    assert remotes["data_url"]["dataset"]["id"] == "2ff0d6ba-c480-45ae-be41-09a8369bfc90"
    assert remotes["pretrained_url"]["obs"]["obs_url"] == "/my-bucket/models/resnet50-pretrained/"
    assert outputs["output_url"] == "/my-bucket/output/resnet/"


def _check_pipeline(client: ModelArtsAPI, outputs: dict[str, Any], state: dict[str, Any]) -> None:
    prepare, train = client.get_job(outputs["prepare_id"]), client.get_job(outputs["train_id"])
    assert outputs["prepare_phase"] == "Completed"  # wait_for="completed"
    assert outputs["prepared_url"] == "/my-bucket/prepared/"
    train_wire = train.model_dump(mode="json", exclude_none=True)
    assert train_wire["algorithm"]["inputs"][0]["remote"]["obs"]["obs_url"] == outputs["prepared_url"]
    # train was created only once prepare had completed.
    assert prepare.status is not None and prepare.metadata is not None and train.metadata is not None
    prepare_end = prepare.metadata.create_time + (prepare.status.duration or 0)  # type: ignore[operator]
    assert train.metadata.create_time is not None and train.metadata.create_time >= prepare_end


def _check_fault_tolerance(client: ModelArtsAPI, outputs: dict[str, Any], state: dict[str, Any]) -> None:
    job = client.get_job(outputs["job_id"])
    assert job.metadata is not None
    annotations = job.metadata.annotations or {}
    assert annotations["fault-tolerance/job-retry-num"] == "3"
    assert annotations["fault-tolerance/job-unconditional-retry"] == "true"
    assert annotations["fault-tolerance/hang-retry"] == "true"
    assert outputs["annotations"] == annotations
    assert isinstance(outputs["running_records"], list)
    wire = job.model_dump(mode="json", exclude_none=True)
    assert wire["spec"]["resource"]["node_count"] == 2


CHECKS: dict[str, Callable[[ModelArtsAPI, dict[str, Any], dict[str, Any]], None]] = {
    "quickstart": _check_quickstart,
    "custom-image": _check_custom_image,
    "obs-dataset": _check_obs_dataset,
    "pipeline": _check_pipeline,
    "fault-tolerance": _check_fault_tolerance,
}


# The examples whose state gives a delete something of its own: secret environment variables and tags
# (custom-image), a completed job another one depends on (pipeline). `pulumi destroy` runs no program, so
# the others' destroy is the plain one test_story.py proves for each front-end, and the native plugin's is
# the same whatever language the program is in.
DESTROYED = {"custom-image", "pipeline"}

# Native-provider programs in TypeScript and Go (`scripts/sdk --check` compiles them too) and YAML: they run
# through the Node.js, Go and YAML language hosts set-up builds, the first two against the repository's sdk/.
OTHER_LANGUAGES = ("native-typescript", "native-go", "native-yaml")


def test_every_example_is_exercised() -> None:
    assert sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()) == sorted([*CHECKS, *OTHER_LANGUAGES])
    for name in CHECKS:
        program = (EXAMPLES / name / "__main__.py").read_text()
        assert program.startswith('"""'), f"{name}: the program starts with a docstring"
        assert "modelarts:secretKey" in program, f"{name}: the docstring says how to point it at the cloud"
        if name != "quickstart":
            assert "virtualenv" not in (EXAMPLES / name / "Pulumi.yaml").read_text().replace(
                "No `virtualenv` option", ""
            )


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_example_up_preview_destroy(
    tmp_path: Path, emulator: EmulatorProcess, name: str, front_end: FrontEnd
) -> None:
    workdir = tmp_path / "project"
    _copy_example(name, workdir, front_end)
    env = pulumi_env(tmp_path / "state", {**POLL_ENV, **emulator_env(emulator)})
    stack = Stack(workdir, tmp_path / "state", env=env).init()

    up = stack.up()
    assert_no_traceback(up.stdout, up.stderr)
    outputs = stack.outputs()
    state = {
        r["urn"].rsplit("::", 1)[-1]: r
        for r in stack.export()["deployment"]["resources"]
        if front_end.is_job(r)
    }
    assert state, "the example declares training jobs"
    with emulator_client(emulator) as client:
        CHECKS[name](client, outputs, state)
        for resource in state.values():
            assert client.get_job(resource["id"]).name == resource["outputs"]["name"]

        stack.preview("--expect-no-changes")

        if name in DESTROYED:
            destroy = stack.destroy()
            assert_no_traceback(destroy.stdout, destroy.stderr)
            assert not [job.name for job in all_jobs(client) if job.phase in LIVE_PHASES]
            assert stack.resources(front_end.type_token) == []


def _catalogue(emu: EmulatorProcess) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The account's flavors and engines as the service lists them."""
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        flavors = http.get(emu.api_url("/training-job-flavors")).raise_for_status().json()["flavors"]
        engines = http.get(emu.api_url("/training-job-engines")).raise_for_status().json()["items"]
    return flavors, engines


def _copy_other_language_example(name: str, dest: Path) -> None:
    """The example as a user has it once its dependencies are in place: the plugins block and the SDK link
    point at this checkout (the virtualenv's plugin; sdk/go through go.mod's replace, the compiled sdk/nodejs
    in the session's node_modules, see languages.py; YAML has no SDK)."""
    # Without what a user's own installs left there (node_modules, package-lock.json: git ignores them).
    shutil.copytree(EXAMPLES / name, dest, ignore=shutil.ignore_patterns("node_modules", "package-lock.json"))
    project = dest / "Pulumi.yaml"
    relative_plugin_dir = "path: ../../.venv/bin"
    assert relative_plugin_dir in project.read_text()
    project.write_text(project.read_text().replace(relative_plugin_dir, f"path: {PLUGIN_DIR}"))
    if name == "native-go":
        go_mod = dest / "go.mod"
        relative_sdk = f"replace {languages.go_sdk_module()} => ../../sdk/go"
        assert relative_sdk in go_mod.read_text()
        go_mod.write_text(
            go_mod.read_text().replace(
                relative_sdk, f"replace {languages.go_sdk_module()} => {languages.SDK_GO}"
            )
        )
    elif name == "native-typescript":
        # The SDK as `npm install` puts it there (the package built from sdk/nodejs, docs/examples.md).
        sdk_package = json.loads((languages.SDK_NODEJS / "package.json").read_text())["name"]
        dependencies = json.loads((dest / "package.json").read_text())["dependencies"]
        assert dependencies[sdk_package] == "file:../../sdk/nodejs/bin", dependencies
        (dest / "node_modules").symlink_to(languages.node_modules(languages.session_cache()))


@pytest.mark.languages
@pytest.mark.parametrize("name", OTHER_LANGUAGES)
def test_other_language_example_up_and_empty_preview(
    tmp_path: Path, emulator_factory: Callable[..., EmulatorProcess], name: str
) -> None:
    # Jobs run until terminated, so that what the examples export about running jobs can be checked.
    emulator = emulator_factory(running_seconds=600)
    workdir = tmp_path / "project"
    _copy_other_language_example(name, workdir)
    env = pulumi_env(tmp_path / "state", {**POLL_ENV, **emulator_env(emulator), **languages.GO_ENV})
    stack = Stack(workdir, tmp_path / "state", env=env).init()

    stack.up()
    outputs = stack.outputs()
    [resource] = stack.resources(NATIVE.type_token)
    with emulator_client(emulator) as client:
        job = client.get_job(outputs["id"])
        assert job.phase == "Running" and outputs["phase"] == "Running"  # wait_for: running
        assert job.name == resource["outputs"]["name"] and resource["id"] == outputs["id"]
        assert job.algorithm is not None and job.algorithm.engine is not None
        assert job.algorithm.engine.image_url == "org/train:1.0"
        if name == "native-typescript":
            # Looked up once the job was running: it counts itself, the one running job of the project.
            assert outputs["running"] == 1
            assert [j.job_id for j in all_jobs(client) if j.phase == "Running"] == [outputs["id"]]
        if name == "native-yaml":
            # getTrainingJobs through fn::invoke, given the job's name: run once the job was, it finds it.
            assert outputs["runningId"] == outputs["id"]
        # The catalogue's functions: what each program took from them is what the account lists.
        flavors, engines = _catalogue(emulator)
        if name in ("native-typescript", "native-go"):
            # The job's flavor, chosen from the CPU flavors: the one with 8 cores.
            cpu = [f for f in flavors if f["flavor_type"] == "CPU"]
            [eight] = [f["flavor_id"] for f in cpu if f["flavor_info"]["cpu"]["core_num"] == 8]
            assert outputs["flavor"] == eight
            assert job.spec is not None and job.spec.resource is not None
            assert job.spec.resource.flavor_id == eight
        if name == "native-typescript":
            pytorch = [e["engine_id"] for e in engines if e["engine_name"] == "PyTorch"]
            assert outputs["pytorchEngines"] == pytorch
        if name == "native-go":
            assert outputs["engines"] == len(engines)
        if name == "native-yaml":
            # The listing in the schema's names (flavorId, maxNum, flavorInfo.cpu.coreNum).
            cpu = [f for f in flavors if f["flavor_type"] == "CPU"]
            assert [f["flavorId"] for f in outputs["cpuFlavors"]] == [f["flavor_id"] for f in cpu]
            assert [f["maxNum"] for f in outputs["cpuFlavors"]] == [f["max_num"] for f in cpu]
            cores = [f["flavorInfo"]["cpu"]["coreNum"] for f in outputs["cpuFlavors"]]
            assert cores == [f["flavor_info"]["cpu"]["core_num"] for f in cpu]

        stack.preview("--expect-no-changes")
