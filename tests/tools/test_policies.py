"""The training job policies (pulumi_modelarts.tools.policies) in process: which resources are jobs, and each
policy's verdict on plain property dicts of both front-ends (wire names for the dynamic provider's jobs,
schema names for the native plugin's), passing and failing, with their messages. The policy SDK's side
(resource_policies) is proven when pulumi-policy is installed; the pack through the CLI: tests/cli/."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from pulumi.dynamic import CreateResult, ResourceProvider
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.frontends.renaming import schema_path, to_schema
from pulumi_modelarts.generated.schema_names import INPUTS
from pulumi_modelarts.tools.policies import (
    DYNAMIC,
    NATIVE,
    NATIVE_TYPE,
    POLICIES,
    PROVIDER_CLASS_PATHS,
    Job,
    recognise,
)

DYNAMIC_TYPE = "pulumi-python:dynamic/modelarts:TrainingJob"
OUR_PROVIDER = serialize_provider(TrainingJobProvider())


class OtherProvider(ResourceProvider):
    """Another package's dynamic provider, which may well call its resource modelarts:TrainingJob too."""

    def create(self, props: Any) -> CreateResult:
        return CreateResult("x", props)


OTHER_PROVIDER = serialize_provider(OtherProvider())


def wire_job(**overrides: Any) -> dict[str, Any]:
    """A compliant job's inputs in wire names, with two tasks (each has its own resource and image)."""
    job: dict[str, Any] = {
        "algorithm": {
            "engine": {"image_url": "swr.example.com/team/train:1.0"},
            "command": "python train.py",
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 2}},
        "tasks": [
            {
                "role": "worker",
                "algorithm": {"engine": {"image_url": "swr.example.com/team/worker:1.0"}},
                "task_resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 1},
            },
            {
                "role": "server",
                "algorithm": {"job_config": {"engine": {"image_url": "swr.example.com/team/ps:1.0"}}},
                "task_resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 2, "pool_id": "pool-a"},
            },
        ],
        "tags": {"team": "vision", "cost-center": "42"},
        "wait_timeout": "30m",
    }
    job.update(overrides)
    return job


def job_of(front_end: str, wire: Mapping[str, Any], create_timeout: float | None = None) -> Job:
    """The job as each front-end's resource holds it: the dynamic one's wire names and provider, the native
    one's schema names (translated by the plugin's own renaming)."""
    if front_end == DYNAMIC:
        found = recognise(DYNAMIC_TYPE, {**wire, "__provider": OUR_PROVIDER}, "job", create_timeout)
    else:
        found = recognise(NATIVE_TYPE, to_schema(wire, INPUTS), "job", create_timeout)
    assert found is not None and found.front_end == front_end
    return found


def named(front_end: str, wire_path: str) -> str:
    """A property path (with list indexes) as the front-end names it."""
    return wire_path if front_end == DYNAMIC else schema_path(wire_path)


SETTINGS: dict[str, dict[str, Any]] = {
    "modelarts-max-nodes": {"maxNodes": 2},
    "modelarts-allowed-flavors": {"flavors": ["modelarts.vm.cpu.8u"], "pools": ["pool-a"]},
    "modelarts-required-tags": {"tags": ["team", "cost-center"]},
    "modelarts-max-wait": {"maxWaitTimeout": "1h"},
    "modelarts-image-registries": {"registries": ["swr.example.com/team/"]},
}
CHECKS = {spec.name: spec.check for spec in POLICIES}
BOTH = pytest.mark.parametrize("front_end", [DYNAMIC, NATIVE])


# --- which resources are jobs -------------------------------------------------------------------------------


def test_the_provider_class_paths_are_the_provider_class() -> None:
    assert (TrainingJobProvider.__module__, TrainingJobProvider.__qualname__) in PROVIDER_CLASS_PATHS
    from pulumi_modelarts import provider

    assert provider.TrainingJobProvider is TrainingJobProvider  # the path older states pickled


@pytest.mark.parametrize("type_token", [DYNAMIC_TYPE, "pulumi-python:dynamic:Resource"])
def test_a_dynamic_job_is_known_by_its_provider(type_token: str) -> None:
    job = recognise(type_token, {"__provider": OUR_PROVIDER, "spec": {}}, "a")
    assert job is not None and job.front_end == DYNAMIC and job.name == "a"


def test_a_dynamic_job_without_its_provider_is_known_by_its_marks() -> None:
    # What Pulumi 3.259 hands an analyzer: the inputs the provider's check returned, without __provider.
    inputs = {**wire_job(), "name_prefix": "a", "name_scope": "proj/dev"}
    job = recognise(DYNAMIC_TYPE, inputs, "a")
    assert job is not None and job.front_end == DYNAMIC
    heterogeneous = {"tasks": wire_job()["tasks"], "name_scope": "proj/dev"}
    assert recognise(DYNAMIC_TYPE, heterogeneous, "h") is not None


def test_the_native_job_is_known_by_its_type() -> None:
    job = recognise(NATIVE_TYPE, {"spec": {}}, "b")
    assert job is not None and job.front_end == NATIVE


@pytest.mark.parametrize(
    ("type_token", "props"),
    [
        # Another dynamic resource, even one whose type names modelarts:TrainingJob.
        (DYNAMIC_TYPE, {"__provider": serialize_provider(OtherProvider())}),
        ("pulumi-python:dynamic:Resource", {"__provider": serialize_provider(OtherProvider())}),
        # A provider that is not a pickle, or none, or not text.
        (DYNAMIC_TYPE, {"__provider": "not base64!"}),
        (DYNAMIC_TYPE, {"__provider": "aGVsbG8="}),
        (DYNAMIC_TYPE, {}),
        (DYNAMIC_TYPE, {"__provider": 7}),
        # A job's body, or the scope, alone; the marks with another provider.
        (DYNAMIC_TYPE, {"algorithm": {"command": "x"}, "spec": {}}),
        (DYNAMIC_TYPE, {"name_scope": "proj/dev", "spec": {}}),
        (DYNAMIC_TYPE, {"name_scope": 7, "algorithm": {}}),
        (DYNAMIC_TYPE, {"name_scope": "p", "algorithm": {}, "__provider": OTHER_PROVIDER}),
        # Our provider's pickle on a resource that is not a dynamic one.
        ("aws:s3/bucket:Bucket", {"__provider": OUR_PROVIDER}),
        ("modelarts:index:Other", {}),
    ],
)
def test_no_other_resource_is_taken_for_a_job(type_token: str, props: dict[str, Any]) -> None:
    assert recognise(type_token, props, "x") is None


def test_a_provider_wrapping_ours_is_not_ours() -> None:
    # The first class a pickle names is the object's own: one holding our provider inside is another's.
    wrapper = OtherProvider()
    wrapper.inner = TrainingJobProvider()  # type: ignore[attr-defined]
    assert recognise(DYNAMIC_TYPE, {"__provider": serialize_provider(wrapper)}, "x") is None


# --- the policies -------------------------------------------------------------------------------------------


@BOTH
def test_a_compliant_job_passes_every_policy(front_end: str) -> None:
    job = job_of(front_end, wire_job(), create_timeout=1800)
    for name, check in CHECKS.items():
        assert check(job, SETTINGS[name]) == [], name


@BOTH
def test_unconfigured_policies_pass_anything(front_end: str) -> None:
    job = job_of(front_end, wire_job(spec={"resource": {"node_count": 999, "flavor_id": "any"}}, tags={}))
    for name, check in CHECKS.items():
        assert check(job, {}) == [], name


@BOTH
def test_max_nodes(front_end: str) -> None:
    wire = wire_job()
    wire["spec"]["resource"]["node_count"] = 3
    wire["tasks"][0]["task_resource"]["node_count"] = 4
    found = CHECKS["modelarts-max-nodes"](job_of(front_end, wire), SETTINGS["modelarts-max-nodes"])
    assert found == [
        f"modelarts-max-nodes: training job 'job': {named(front_end, 'spec.resource.node_count')} is 3, "
        "more than maxNodes (2)",
        f"modelarts-max-nodes: training job 'job': {named(front_end, 'tasks[0].task_resource.node_count')} "
        "is 4, more than maxNodes (2)",
    ]


@BOTH
def test_allowed_flavors_and_pools(front_end: str) -> None:
    wire = wire_job()
    wire["spec"]["resource"]["flavor_id"] = "modelarts.vm.gpu.p100"
    wire["tasks"][1]["task_resource"]["pool_id"] = "pool-b"
    found = CHECKS["modelarts-allowed-flavors"](
        job_of(front_end, wire), SETTINGS["modelarts-allowed-flavors"]
    )
    assert found == [
        f"modelarts-allowed-flavors: training job 'job': {named(front_end, 'spec.resource.flavor_id')} "
        "is 'modelarts.vm.gpu.p100', not one of flavors ['modelarts.vm.cpu.8u']",
        "modelarts-allowed-flavors: training job 'job': "
        f"{named(front_end, 'tasks[1].task_resource.pool_id')} is 'pool-b', not one of pools ['pool-a']",
    ]
    # A job on no dedicated pool passes a pools list it does not appear in.
    shared = wire_job(tasks=[])
    assert CHECKS["modelarts-allowed-flavors"](job_of(front_end, shared), {"pools": []}) == []


@BOTH
def test_required_tags(front_end: str) -> None:
    found = CHECKS["modelarts-required-tags"](
        job_of(front_end, wire_job(tags={"team": "vision"})), SETTINGS["modelarts-required-tags"]
    )
    assert found == [
        "modelarts-required-tags: training job 'job': tags is ['team'] (its keys), missing ['cost-center']"
    ]
    untagged = wire_job()
    del untagged["tags"]
    assert CHECKS["modelarts-required-tags"](job_of(front_end, untagged), {"tags": ["team"]}) == [
        "modelarts-required-tags: training job 'job': tags is [] (its keys), missing ['team']"
    ]


@BOTH
@pytest.mark.parametrize(("wait_timeout", "shown"), [("2h", "'2h' (7200s)"), (5400, "5400 (5400s)")])
def test_max_wait(front_end: str, wait_timeout: object, shown: str) -> None:
    job = job_of(front_end, wire_job(wait_timeout=wait_timeout), create_timeout=7200)
    found = CHECKS["modelarts-max-wait"](job, SETTINGS["modelarts-max-wait"])
    assert found == [
        f"modelarts-max-wait: training job 'job': {named(front_end, 'wait_timeout')} is {shown}, "
        "longer than maxWaitTimeout (3600s)",
        "modelarts-max-wait: training job 'job': customTimeouts.create is 7200s, "
        "longer than maxWaitTimeout (3600s)",
    ]


@BOTH
def test_max_wait_names_a_wait_that_is_no_duration(front_end: str) -> None:
    job = job_of(front_end, wire_job(wait_timeout="soon"))
    [found] = CHECKS["modelarts-max-wait"](job, {"maxWaitTimeout": 600})
    assert found.startswith(
        f"modelarts-max-wait: training job 'job': {named(front_end, 'wait_timeout')} is 'soon'"
    )
    assert "is not a duration" in found


@BOTH
def test_image_registries(front_end: str) -> None:
    wire = wire_job()
    wire["algorithm"]["engine"]["image_url"] = "docker.io/someone/train:1.0"
    wire["tasks"][1]["algorithm"]["job_config"]["engine"]["image_url"] = "swr.example.com/team-evil/ps:1"
    found = CHECKS["modelarts-image-registries"](
        job_of(front_end, wire), SETTINGS["modelarts-image-registries"]
    )
    path = "tasks[1].algorithm.job_config.engine.image_url"
    assert found == [
        "modelarts-image-registries: training job 'job': "
        f"{named(front_end, 'algorithm.engine.image_url')} is 'docker.io/someone/train:1.0', "
        "which starts with none of registries ['swr.example.com/team/']",
        f"modelarts-image-registries: training job 'job': {named(front_end, path)} is "
        "'swr.example.com/team-evil/ps:1', which starts with none of registries ['swr.example.com/team/']",
    ]


def test_the_package_does_not_need_the_policy_sdk() -> None:
    code = "import sys\nimport pulumi_modelarts.tools.policies\nprint('pulumi_policy' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- the pack (policy/) started as a Pulumi CLI starts it, in its own environment -------------------------

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "policy" / "pulumi-analyzer-modelarts"


def test_the_pack_answers_the_analyzer_protocol(policy_python: Path) -> None:
    """The pack started by its launcher as the CLI starts it (the engine's address as its one argument), in
    the environment policy/requirements.txt describes (pulumi-policy), then asked over gRPC as the engine
    asks: its policies and their settings' schemas, their configuration, a verdict on a job of each front-end
    (a create's customTimeouts included) and none on another dynamic resource."""
    import grpc
    from google.protobuf import empty_pb2, struct_pb2
    from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

    env = {**os.environ, "MODELARTS_POLICY_PYTHON": str(policy_python)}
    proc = subprocess.Popen(
        [str(LAUNCHER), "127.0.0.1:1"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # stopped with its process group below
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert port.isdigit(), proc.stderr.read() if proc.stderr else port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = analyzer_pb2_grpc.AnalyzerStub(channel)
            info = stub.GetAnalyzerInfo(empty_pb2.Empty(), timeout=30)
            assert info.name == "modelarts-training-jobs"
            assert [p.name for p in info.policies] == [spec.name for spec in POLICIES]
            assert {p.enforcementLevel for p in info.policies} == {analyzer_pb2.ADVISORY}
            schemas = {p.name: json.loads(json_format.MessageToJson(p.configSchema)) for p in info.policies}
            max_nodes = {"maxNodes": {"type": "integer", "minimum": 1}}
            assert schemas["modelarts-max-nodes"]["properties"] == max_nodes

            def config(settings: Mapping[str, Any], level: int) -> analyzer_pb2.PolicyConfig:
                properties = struct_pb2.Struct()
                properties.update(dict(settings))
                return analyzer_pb2.PolicyConfig(enforcementLevel=level, properties=properties)

            levels = {"modelarts-max-nodes": analyzer_pb2.MANDATORY}
            stub.Configure(
                analyzer_pb2.ConfigureAnalyzerRequest(
                    policyConfig={
                        name: config(settings, levels.get(name, analyzer_pb2.ADVISORY))
                        for name, settings in SETTINGS.items()
                    }
                ),
                timeout=30,
            )

            def analyze(
                resource_type: str, props: Mapping[str, Any], create: float = 0
            ) -> list[tuple[str, str, int]]:
                properties = struct_pb2.Struct()
                properties.update(dict(props))
                timeouts = analyzer_pb2.AnalyzerResourceOptions.CustomTimeouts(create=create)
                request = analyzer_pb2.AnalyzeRequest(
                    type=resource_type,
                    properties=properties,
                    urn=f"urn:pulumi:s::p::{resource_type}::job",
                    name="job",
                    options=analyzer_pb2.AnalyzerResourceOptions(customTimeouts=timeouts),
                )
                answer = stub.Analyze(request, timeout=30)
                # The SDK puts the policy's description before the message, on a line of its own.
                return [
                    (d.policyName, d.message.split("\n")[-1], d.enforcementLevel) for d in answer.diagnostics
                ]

            wire = wire_job()
            wire["spec"]["resource"]["node_count"] = 5
            assert analyze(DYNAMIC_TYPE, {**wire, "__provider": OUR_PROVIDER}) == [
                (
                    "modelarts-max-nodes",
                    "modelarts-max-nodes: training job 'job': spec.resource.node_count is 5, "
                    "more than maxNodes (2)",
                    analyzer_pb2.MANDATORY,
                )
            ]
            assert analyze(NATIVE_TYPE, to_schema(wire, INPUTS)) == [
                (
                    "modelarts-max-nodes",
                    "modelarts-max-nodes: training job 'job': spec.resource.nodeCount is 5, "
                    "more than maxNodes (2)",
                    analyzer_pb2.MANDATORY,
                )
            ]
            assert analyze(NATIVE_TYPE, to_schema(wire_job(), INPUTS), create=7200) == [
                (
                    "modelarts-max-wait",
                    "modelarts-max-wait: training job 'job': customTimeouts.create is 7200s, "
                    "longer than maxWaitTimeout (3600s)",
                    analyzer_pb2.ADVISORY,
                )
            ]
            other = {**wire, "__provider": serialize_provider(OtherProvider())}
            assert analyze(DYNAMIC_TYPE, other) == []
            assert analyze("aws:s3/bucket:Bucket", wire) == []
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
