"""The emulator's own request checks (pure): the fields they accept and the problems they name.

Every field of the official SDK's create request is accepted, and so is every field the project's client can
send; unknown, mistyped and inconsistent fields are refused with their path.
"""

from __future__ import annotations

import copy
import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from modelarts_emulator import checks
from pulumi_modelarts.wire.models import CreateTrainingJobRequest

from ..official_sdk import sdk_module

sdk_models = sdk_module("huaweicloudsdkmodelarts.v1.model")

FREE_JOB: dict[str, Any] = {
    "kind": "job",
    "metadata": {"name": "TestModelArtsJob", "description": "This is a ModelArts job"},
    "algorithm": {
        "id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed",
        "parameters": [{"name": "input_dir", "value": "obs://bucket/dir/"}],
        "policies": {"auto_search": None},
        "environments": {},
    },
    "spec": {
        "resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1},
        "log_export_path": {"obs_url": ""},
    },
}


def sdk_sample(type_name: str) -> Any:
    """A value of an SDK model type with every field filled in, recursively."""
    if type_name.startswith("list["):
        return [sdk_sample(type_name[5:-1])]
    if type_name.startswith("dict("):
        return {"KEY": "value"}
    scalars: dict[str, Any] = {"str": "x", "int": 1, "float": 1.5, "bool": True, "object": "x"}
    if type_name in scalars:
        return scalars[type_name]
    cls = getattr(sdk_models, type_name)
    return {cls.attribute_map[attr]: sdk_sample(kind) for attr, kind in cls.openapi_types.items()}


def unknown_fields(body: Any) -> list[str]:
    return [path for path, message in checks.problems(checks.CREATE, body) if "not a known field" in message]


def test_every_field_of_the_official_sdk_create_request_is_accepted() -> None:
    body = sdk_sample("Job")
    assert len(str(body)) > 5000  # the walk really reached the nested models
    assert unknown_fields(body) == []


def _client_sample(annotation: Any) -> Any:
    if typing.get_origin(annotation) is typing.Annotated:  # a constraint is not part of the shape
        return _client_sample(typing.get_args(annotation)[0])
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType):
        return _client_sample(args[0])
    if origin is typing.Literal:
        return args[0]
    if origin is list:
        return [_client_sample(args[0])]
    if origin is dict:
        return {"KEY": _client_sample(args[1])}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {
            field.alias or name: _client_sample(field.annotation)
            for name, field in annotation.model_fields.items()
        }
    return {str: "x", int: 1, float: 1.5, bool: True}[annotation]


def test_every_field_the_client_can_send_is_accepted() -> None:
    body = _client_sample(CreateTrainingJobRequest)
    assert unknown_fields(body) == []


def test_the_pages_example_is_fine_and_nulls_mean_not_given() -> None:
    assert checks.create_problems(FREE_JOB) == []
    with_nulls = copy.deepcopy(FREE_JOB)
    with_nulls["metadata"]["description"] = None
    with_nulls["algorithm"]["engine"] = None
    assert checks.create_problems(with_nulls) == []


def changed(change: Any) -> dict[str, Any]:
    body = copy.deepcopy(FREE_JOB)
    change(body)
    return body


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (lambda b: b.update(colour="red"), "colour", "not a known field"),
        (lambda b: b["spec"]["resource"].update(gpus=2), "spec.resource.gpus", "not a known field"),
        (lambda b: b["metadata"].pop("name"), "metadata.name", "required"),
        (lambda b: b["metadata"].update(name="a" * 65), "metadata.name", "1 to 64"),
        (lambda b: b["metadata"].update(name="bad name"), "metadata.name", "letters, digits"),
        (lambda b: b["metadata"].update(description="d" * 257), "metadata.description", "256"),
        (lambda b: b.update(kind="batch"), "kind", "one of job"),
        (lambda b: b["spec"]["resource"].update(node_count=0), "spec.resource.node_count", "at least 1"),
        (lambda b: b["spec"]["resource"].update(node_count=True), "spec.resource.node_count", "integer"),
        (lambda b: b["spec"]["resource"].update(node_count="2"), "spec.resource.node_count", "integer"),
        (lambda b: b["algorithm"].update(environments={"A": 1}), "algorithm.environments.A", "string"),
        (lambda b: b["algorithm"].update(parameters={}), "algorithm.parameters", "list"),
        (lambda b: b["algorithm"]["parameters"].append(3), "algorithm.parameters[1]", "object"),
        (lambda b: b["algorithm"].pop("id"), "algorithm", "needs id, subscription_id"),
        (
            lambda b: b["algorithm"].update(inputs=[{"name": "data", "remote": {}}]),
            "algorithm.inputs[0].remote",
            "one of dataset, obs",
        ),
        (
            lambda b: b["algorithm"].update(outputs=[{"name": "out", "remote": {"obs": {}}}]),
            "algorithm.outputs[0].remote.obs.obs_url",
            "required",
        ),
        (lambda b: b["spec"].update(resource={"node_count": 1}), "spec.resource.flavor_id", "pool_id"),
        (lambda b: b["spec"].update(volumes=[{}]), "spec.volumes[0]", "one of nfs, pfs, obs"),
        (lambda b: b.pop("algorithm"), "algorithm", "required"),
        (
            lambda b: b["metadata"].update(annotations={"emulator/fail-after-seconds": "soon"}),
            "metadata.annotations.emulator/fail-after-seconds",
            "seconds",
        ),
    ],
)
def test_problems_name_the_field(change: Any, path: str, words: str) -> None:
    found = checks.create_problems(changed(change))
    assert any(at == path and words in message for at, message in found), found


# The API pages' advice ("must be used together with", "leave it blank") that the real service does not
# enforce: Huawei's Terraform acceptance tests send such requests and the service creates the jobs. These
# were refusals before; the emulator now accepts them, as the service does.
@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (
            lambda b: b["algorithm"].update(code_dir="obs://b/c/"),
            "algorithm.boot_file",
            "together with code_dir",
        ),
        (lambda b: b["algorithm"].update(subscription_id="s"), "algorithm.item_version_id", "together"),
        (
            lambda b: b["algorithm"].update(code_dir="obs://b/c/", boot_file="obs://b/c/t.py"),
            "algorithm.code_dir",
            "blank when the algorithm is given by id",
        ),
        (
            lambda b: b["algorithm"].update(
                id=None, engine={"engine_name": "PyTorch"}, command="python t.py"
            ),
            "algorithm.engine.engine_version",
            "together with engine_name",
        ),
        (
            lambda b: b["algorithm"].update(id=None, engine={"image_url": "swr/x:1"}),
            "algorithm",
            "code_dir with boot_file, or a command",
        ),
        (
            lambda b: b["algorithm"].update(
                id=None, engine={"image_url": "swr/x:1", "install_sys_packages": True}, command="run"
            ),
            "algorithm.engine.install_sys_packages",
            "engine_name, engine_version and image_url",
        ),
        (lambda b: b.update(tasks=[{"role": "w"}]), "tasks", "blank when spec is given"),
    ],
)
def test_advice_the_service_does_not_enforce_is_not_refused(change: Any, path: str, words: str) -> None:
    found = checks.create_problems(changed(change))
    assert not any(at == path or words in message for at, message in found), found
    assert found == []


def test_a_body_that_is_not_an_object() -> None:
    assert checks.create_problems([1]) == [("body", "must be an object")]
    assert checks.problems(checks.SEARCH, "x") == [("body", "must be an object")]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"limit": 51}, "limit"),
        ({"offset": -1}, "offset"),
        ({"order": "up"}, "order"),
        ({"host_ips": ["10.0.0.300"]}, "host_ips[0]"),
        ({"host_ips": ["10.0.0.1"] * 11}, "host_ips"),
        ({"tags": [{"values": ["a"]}]}, "tags[0].key"),
        ({"train_type": "other"}, "train_type"),
        ({"filters": {}}, "filters"),
        ({"colour": 1}, "colour"),
    ],
)
def test_search_shapes(body: dict[str, Any], path: str) -> None:
    assert [at for at, _ in checks.problems(checks.SEARCH, body)] == [path]
