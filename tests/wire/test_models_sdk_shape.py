"""The official SDK as an oracle for the job's shape: every field path of its create request is a field of our
request models, and every field path of its answers is a field of our response models.

Paths use wire names, "." between objects and "[]" for the items of a list; both trees are walked the same way
(our ``X | None`` and ``Annotated`` wrappers unwrapped; the SDK's ``openapi_types``/``attribute_map``).
"""

from __future__ import annotations

import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from pulumi_modelarts.wire import models as m

from ..official_sdk import sdk_module

sdk = sdk_module("huaweicloudsdkmodelarts.v1.model")

# SDK request fields that are not inputs here, each with its reason.
NOT_IN_REQUEST = {
    # The create page says a heterogeneous job's task inputs read only from OBS ("Heterogeneous jobs support
    # only OBS"); the SDK reuses its general input model there, dataset included.
    "tasks[].algorithm.inputs[].remote.dataset",
}
# Request fields here that the SDK's create request lacks, each with its source.
ONLY_IN_OUR_REQUEST = {
    # Listed in the create page's request table (set by the service; accepted, not offered as inputs).
    "metadata.id",
    "metadata.create_time",
    "metadata.user_name",
    # The upload settings of an output channel, from the API pages' Output table.
    "algorithm.outputs[].mode",
    "algorithm.outputs[].period",
    "tasks[].algorithm.job_config.outputs[].mode",
    "tasks[].algorithm.job_config.outputs[].period",
    # Sent by Huawei's Terraform resource (and read back: "production" when unset).
    "spec.runtime_type",
}


def sdk_paths(cls: Any, prefix: str = "") -> set[str]:
    found: set[str] = set()
    for attribute, type_name in cls.openapi_types.items():
        path = prefix + cls.attribute_map[attribute]
        while match := re.fullmatch(r"list\[(.+)\]", type_name):
            type_name, path = match.group(1), path + "[]"
        found.add(path)
        nested = getattr(sdk, type_name, None)
        if isinstance(nested, type) and hasattr(nested, "openapi_types"):
            found |= sdk_paths(nested, path + ".")
    return found


def our_paths(model: type[BaseModel], prefix: str = "", seen: tuple[type[BaseModel], ...] = ()) -> set[str]:
    found: set[str] = set()
    for name, field in model.model_fields.items():
        found |= _annotation_paths(field.annotation, prefix + (field.alias or name), (*seen, model))
    return found


def _annotation_paths(annotation: Any, path: str, seen: tuple[type[BaseModel], ...]) -> set[str]:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _annotation_paths(get_args(annotation)[0], path, seen)
    if origin in (Union, types.UnionType):
        found: set[str] = set()
        for member in get_args(annotation):
            if member is not type(None):
                found |= _annotation_paths(member, path, seen)
        return found
    if origin is list:
        return _annotation_paths(get_args(annotation)[0], path + "[]", seen)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and annotation not in seen:
        return {path} | our_paths(annotation, path + ".", seen)
    return {path}


def _under(path: str, roots: set[str]) -> bool:
    return any(path == root or path.startswith(root + ".") for root in roots)


def test_the_walks_see_nested_lists_and_aliases() -> None:
    # The walkers themselves: a list of lists, a list in a union, and an aliased (camelCase) wire name.
    assert "status.node_count_metrics[][]" in sdk_paths(sdk.ShowTrainingJobDetailsResponse)
    assert "status.node_count_metrics[][]" in our_paths(m.TrainingJob)
    assert {"algorithm.environments", "algorithm.environments[]"} <= our_paths(m.TrainingJob)
    nested = "spec.schedule_policy.required_affinity.node_affinity.nodeSelectorTerms[].matchExpressions[].key"
    assert nested in sdk_paths(sdk.Job) and nested in our_paths(m.CreateTrainingJobRequest)


def test_every_sdk_request_field_is_a_request_field() -> None:
    theirs = sdk_paths(sdk.Job)
    ours = our_paths(m.CreateTrainingJobRequest)
    missing = sorted(p for p in theirs - ours if not _under(p, NOT_IN_REQUEST))
    assert missing == []
    assert not any(_under(p, NOT_IN_REQUEST) for p in ours)  # an exclusion that is no longer needed
    assert len(theirs) > 250  # the walk went deep


def test_our_request_fields_beyond_the_sdk_are_the_documented_ones() -> None:
    extra = our_paths(m.CreateTrainingJobRequest) - sdk_paths(sdk.Job)
    assert extra == ONLY_IN_OUR_REQUEST


@pytest.mark.parametrize(
    ("answer", "model"),
    [
        ("ShowTrainingJobDetailsResponse", m.TrainingJob),
        ("CreateTrainingJobResponse", m.TrainingJob),
        ("StopTrainingJobResponse", m.TrainingJob),
        ("ListTrainingJobsResponse", m.SearchResponse),
        ("ShowTrainingJobLogsPreviewResponse", m.LogPreview),
        ("ListTrainingJobEventsResponse", m.JobEvents),
    ],
)
def test_every_sdk_answer_field_is_a_response_field(answer: str, model: type[BaseModel]) -> None:
    missing = sorted(sdk_paths(getattr(sdk, answer)) - our_paths(model))
    assert missing == []


def test_a_full_answer_in_the_sdk_shape_parses_typed_and_keeps_everything() -> None:
    # Every answer field the notes name, with the types the SDK gives them.
    answer = {
        "metadata": {
            "id": "j",
            "training_experiment_reference": {"id": "e", "name": "exp", "serial_number": "3"},
        },
        "status": {
            "phase": "Running",
            "retention_time": 7,
            "task_ips": [
                {"task": "worker-0", "ip": "10.0.0.2", "host_ip": "192.168.0.9", "schedule_count": 1}
            ],
            "running_records": [
                {
                    "start_at": 1,
                    "xpu_start_at": 2,
                    "recover_records": [
                        {"recover_start_at": 3, "recover": "pod_reschedule", "reason": "oom"}
                    ],
                }
            ],
        },
        "algorithm": {
            "engine": {"image_url": "org/i:1", "image_repo_id": "repo-1"},
            "inputs": [{"name": "d", "access_method": "env", "remote_constraint": [{"data_type": "obs"}]}],
        },
        "spec": {
            "resource": {
                "pool_id": "p",
                "main_container_allocated_resources": {"cpu_core_num": 7.5, "accelerator_type": "npu"},
            },
            "runtime_type": "production",
            "custom_metrics": [{"http_get": {"path": "/m", "port": 8080}}],
        },
        "tasks": [{"role": "worker", "log_export_path": {"obs_url": "/b/logs/"}}],
        "ftjob_config": {"train_process": 0.5, "task_env": {"envs": [{"env_name": "LR", "value": "1e-4"}]}},
        "brand_new_section": {"x": 1},
    }
    job = m.TrainingJob.model_validate(answer)
    assert job.metadata.training_experiment_reference is not None
    assert job.metadata.training_experiment_reference.serial_number == "3"
    assert job.status.retention_time == 7
    assert job.status.task_ips is not None and job.status.task_ips[0].host_ip == "192.168.0.9"
    record = job.status.running_records[0]
    assert record.xpu_start_at == 2 and record.recover_records is not None
    assert record.recover_records[0].recover == "pod_reschedule"
    assert job.algorithm is not None and job.algorithm.engine is not None
    assert job.algorithm.engine.image_repo_id == "repo-1"
    assert job.algorithm.inputs[0].access_method == "env"
    assert job.spec is not None and job.spec.resource is not None
    allocated = job.spec.resource.main_container_allocated_resources
    assert allocated is not None and allocated.cpu_core_num == 7.5
    assert job.spec.runtime_type == "production"
    assert job.tasks[0].log_export_path is not None and job.tasks[0].log_export_path.obs_url == "/b/logs/"
    assert job.ftjob_config is not None and job.ftjob_config.train_process == 0.5
    assert m.to_wire(job) == answer  # typed, and nothing lost or added
