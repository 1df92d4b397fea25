"""The official Huawei Cloud SDK drives the emulator: its signing, paths and wire shapes are the oracle.

Both example requests of the create page are sent (the first as the page's JSON, the second built from the
SDK's typed models), then details, searches with filters and paging, description changes, terminate, delete
and the service's error answers are checked through the SDK's own response and exception types.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..official_sdk import FREE_FLAVOR_EXAMPLE, job_details, sdk_client, sdk_module
from ..support import wait_phase

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException  # noqa: E402
from huaweicloudsdkmodelarts.v1 import model as m  # noqa: E402


def custom_image_example() -> Any:
    """The create page's second example (custom image, dedicated pool, NFS), as SDK models."""
    return m.Job(
        kind="job",
        metadata=m.JobMetadata(name="TestModelArtsJob2", description="This is a ModelArts job2"),
        algorithm=m.JobAlgorithm(
            engine=m.JobEngine(image_url="xxxxxxxx/fastseq:1.2"),
            command="cd /home/ma-user/ddp_demo && sh run_ddp.sh",
            parameters=[],
            policies=m.JobPolicies(),
            environments={"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0"},
        ),
        spec=m.Spec(
            resource=m.SpecResource(
                flavor_id="modelarts.pool.visual.xlarge", node_count=1, pool_id="poolfaf38d76"
            ),
            log_export_path=m.LogExportPath(obs_url="/cn-north-4-training-test/limou/ddp-demo-log/"),
            volumes=[
                m.SpecVolumes(
                    nfs=m.Nfs(
                        nfs_server_path="192.168.0.82:/", local_path="/home/ma-user/nfs/", read_only=False
                    )
                )
            ],
        ),
    )


@pytest.fixture
def sdk(emulator_factory: Callable[..., EmulatorProcess]) -> tuple[EmulatorProcess, Any]:
    emu = emulator_factory(creating_seconds=0.2, pending_seconds=0.2, running_seconds=30)
    return emu, sdk_client(emu)


def test_both_create_examples_and_details(sdk: tuple[EmulatorProcess, Any]) -> None:
    emu, client = sdk
    free = client.create_training_job(m.CreateTrainingJobRequest(body=FREE_FLAVOR_EXAMPLE))
    assert free.status_code == 201
    assert free.kind == "job" and free.metadata.name == "TestModelArtsJob"
    assert free.status.phase == "Creating" and free.status.secondary_phase == "Creating"
    assert free.spec.resource.policy == "regular"
    assert free.spec.resource.flavor_name == "Computing GPU(Vnt1) instance"
    assert free.spec.resource.flavor_detail.flavor_info.gpu.product_name == "GP-Vnt1"
    assert [p.constraint.type for p in free.algorithm.parameters] == ["String"] * 3

    custom = client.create_training_job(m.CreateTrainingJobRequest(body=custom_image_example()))
    assert custom.status_code == 201
    assert custom.algorithm.command == "cd /home/ma-user/ddp_demo && sh run_ddp.sh"
    assert custom.algorithm.engine.image_url == "xxxxxxxx/fastseq:1.2"
    env: dict[str, str] = {}
    for entry in custom.algorithm.environments:
        env.update(entry)
    assert env == {"NCCL_DEBUG": "INFO", "NCCL_IB_DISABLE": "0"}
    assert custom.spec.resource.pool_id == "poolfaf38d76"
    assert custom.spec.volumes[0].nfs.nfs_server_path == "192.168.0.82:/"
    assert custom.spec.log_export_path.obs_url == "/cn-north-4-training-test/limou/ddp-demo-log/"

    details = wait_phase(lambda: job_details(client, custom.metadata.id), "Running")
    assert details.metadata.id == custom.metadata.id
    assert details.metadata.create_time == custom.metadata.create_time
    assert details.status.secondary_phase == "Running" and details.status.start_time > 0
    assert emu.stats()["by_operation"]["create"] == 2


def test_search_with_filters_and_pages(sdk: tuple[EmulatorProcess, Any]) -> None:
    _, client = sdk
    for i in range(5):
        body = json.loads(json.dumps(FREE_FLAVOR_EXAMPLE))
        body["metadata"]["name"] = f"sdk-search-{i}"
        client.create_training_job(m.CreateTrainingJobRequest(body=body))
    client.create_training_job(m.CreateTrainingJobRequest(body=FREE_FLAVOR_EXAMPLE))

    def page(offset: int, **extra: Any) -> Any:
        search = m.JobSearches(
            offset=offset,
            limit=2,
            sort_by="name",
            order="asc",
            filters=[m.Filter(key="name", operator="like", value=["sdk-search"])],
            **extra,
        )
        return client.list_training_jobs(m.ListTrainingJobsRequest(body=search))

    first = page(0)
    assert (first.total, first.count, first.limit, first.offset) == (6, 5, 2, 0)
    names = [item.metadata.name for item in first.items]
    for offset in (1, 2, 3):
        names += [item.metadata.name for item in page(offset).items]
    assert names == [f"sdk-search-{i}" for i in range(5)]

    by_phase = client.list_training_jobs(
        m.ListTrainingJobsRequest(
            body=m.JobSearches(limit=50, filters=[m.Filter(key="phase", operator="in", value=["Terminated"])])
        )
    )
    assert by_phase.count == 0 and by_phase.items == []


def test_describe_terminate_delete_and_errors(sdk: tuple[EmulatorProcess, Any]) -> None:
    _, client = sdk
    job = client.create_training_job(m.CreateTrainingJobRequest(body=FREE_FLAVOR_EXAMPLE))
    job_id = job.metadata.id

    client.change_training_job_description(
        m.ChangeTrainingJobDescriptionRequest(
            training_job_id=job_id, body=m.JobUpdateRequestBody(description="changed by the SDK")
        )
    )
    details = client.show_training_job_details(m.ShowTrainingJobDetailsRequest(training_job_id=job_id))
    assert details.metadata.description == "changed by the SDK"

    wait_phase(lambda: job_details(client, job_id), "Running")
    stop = m.StopTrainingJobRequest(training_job_id=job_id, body=m.JobActionType(action_type="terminate"))
    stopped = client.stop_training_job(stop)
    assert stopped.status_code == 202 and stopped.status.phase == "Terminating"
    wait_phase(lambda: job_details(client, job_id), "Terminated")
    with pytest.raises(ClientRequestException) as refused:
        client.stop_training_job(stop)
    assert (refused.value.status_code, refused.value.error_code) == (409, "ModelArts.2796")

    client.delete_training_job(m.DeleteTrainingJobRequest(training_job_id=job_id))
    with pytest.raises(ClientRequestException) as missing:
        client.show_training_job_details(m.ShowTrainingJobDetailsRequest(training_job_id=job_id))
    error = missing.value
    assert (error.status_code, error.error_code) == (400, "ModelArts.2775")
    assert job_id in error.error_msg and error.request_id

    bad = json.loads(json.dumps(FREE_FLAVOR_EXAMPLE))
    bad["spec"]["resource"]["node_count"] = 0
    with pytest.raises(ClientRequestException) as invalid:
        client.create_training_job(m.CreateTrainingJobRequest(body=bad))
    assert (
        invalid.value.error_code == "ModelArts.2763" and "spec.resource.node_count" in invalid.value.error_msg
    )


def test_wrong_secret_and_other_project(sdk: tuple[EmulatorProcess, Any]) -> None:
    emu, _ = sdk
    request = m.ShowTrainingJobDetailsRequest(training_job_id="any")
    with pytest.raises(ClientRequestException) as unsigned:
        sdk_client(emu, secret_key="not-the-secret").show_training_job_details(request)
    assert (unsigned.value.status_code, unsigned.value.error_code) == (401, "APIG.0301")
    with pytest.raises(ClientRequestException) as elsewhere:
        sdk_client(emu, project_id="f" * 32).show_training_job_details(request)
    assert (elsewhere.value.status_code, elsewhere.value.error_code) == (403, "ModelArts.0105")
