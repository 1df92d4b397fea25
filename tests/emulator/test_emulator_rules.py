"""The real service's rules beyond the seed pages, each driven through the official SDK's client.

Unique names (behind --unique-names) and the name check, DELETE, the terminate refusals (2796, 2812) and the
injectable 2878, ModelArts' own throttling code, the search refusals (2789, 2790, 2807-2809) and filters, and
the fields answers carry beyond the seeds.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..official_sdk import FREE_FLAVOR_EXAMPLE, job_details, sdk_client, sdk_module
from ..support import poll, wait_phase

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException  # noqa: E402
from huaweicloudsdkmodelarts.v1 import model as m  # noqa: E402

Factory = Callable[..., EmulatorProcess]


def named(name: str) -> dict[str, Any]:
    body = copy.deepcopy(FREE_FLAVOR_EXAMPLE)
    body["metadata"]["name"] = name
    return body


def create(client: Any, body: Any) -> Any:
    return client.create_training_job(m.CreateTrainingJobRequest(body=body))


def refused(call: Callable[[], Any]) -> tuple[int, str, str]:
    with pytest.raises(ClientRequestException) as caught:
        call()
    error = caught.value
    assert error.request_id
    return error.status_code, error.error_code, error.error_msg


def raw_job(emu: EmulatorProcess, job_id: str) -> dict[str, Any]:
    answer = httpx.get(emu.api_url(f"/training-jobs/{job_id}"), auth=emu.auth(), timeout=10)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def search(client: Any, **body: Any) -> Any:
    return client.list_training_jobs(m.ListTrainingJobsRequest(body=body))


def name_taken(client: Any, name: str, workspace_id: str | None = None) -> bool:
    request = m.ValidateTrainingJobNameRequest(job_name=name, workspace_id=workspace_id)
    return bool(client.validate_training_job_name(request).is_duplicate)


# -- names ------------------------------------------------------------------------------------------------


def test_unique_names_hold_for_every_kept_job_until_it_is_deleted(emulator_factory: Factory) -> None:
    emu = emulator_factory(unique_names=True, running_seconds=30)
    client = sdk_client(emu)
    assert not name_taken(client, "only-once")
    first = create(client, named("only-once"))
    assert name_taken(client, "only-once") and not name_taken(client, "only-once", workspace_id="other")
    status, code, message = refused(lambda: create(client, named("only-once")))
    assert (status, code) == (400, "ModelArts.2751") and "only-once" in message

    stop = m.StopTrainingJobRequest(training_job_id=first.metadata.id, body=m.JobActionType("terminate"))
    client.stop_training_job(stop)
    wait_phase(lambda: job_details(client, first.metadata.id), "Terminated")
    assert refused(lambda: create(client, named("only-once")))[:2] == (400, "ModelArts.2751")

    deleted = client.delete_training_job(m.DeleteTrainingJobRequest(training_job_id=first.metadata.id))
    assert deleted.status_code == 202
    assert not name_taken(client, "only-once")
    again = create(client, named("only-once"))
    assert again.status_code == 201 and again.metadata.id != first.metadata.id


def test_concurrent_creates_of_one_name_store_exactly_one(emulator_factory: Factory) -> None:
    emu = emulator_factory(unique_names=True)

    def attempt(_: int) -> int:
        with httpx.Client(auth=emu.auth(), timeout=30) as http:
            return http.post(emu.api_url("/training-jobs"), json=named("raced")).status_code

    with ThreadPoolExecutor(max_workers=12) as pool:
        statuses = sorted(pool.map(attempt, range(12)))
    assert statuses == [201] + [400] * 11
    assert search(sdk_client(emu)).total == 1


def test_duplicate_names_are_accepted_with_no_unique_names(emulator_factory: Factory) -> None:
    client = sdk_client(emulator_factory(unique_names=False))
    create(client, named("twice"))
    create(client, named("twice"))
    assert search(client).total == 2
    assert name_taken(client, "twice")
    status, code, _ = refused(lambda: name_taken(client, "no spaces allowed"))
    assert (status, code) == (400, "ModelArts.2763")


# -- delete and terminate ---------------------------------------------------------------------------------


def test_delete_removes_any_job_and_answers_202(emulator_factory: Factory) -> None:
    emu = emulator_factory(running_seconds=30)
    client = sdk_client(emu)
    job = create(client, named("to-delete"))
    wait_phase(lambda: job_details(client, job.metadata.id), "Running")
    request = m.DeleteTrainingJobRequest(training_job_id=job.metadata.id)
    assert client.delete_training_job(request).status_code == 202
    show = m.ShowTrainingJobDetailsRequest(training_job_id=job.metadata.id)
    assert refused(lambda: client.show_training_job_details(show))[:2] == (400, "ModelArts.2775")
    assert refused(lambda: client.delete_training_job(request))[:2] == (400, "ModelArts.2775")
    # A running job's record deleted frees its name as a stopped one's does (unique names are on by default).
    again = create(client, named("to-delete"))
    assert again.status_code == 201 and again.metadata.id != job.metadata.id


def test_terminate_refusals(emulator_factory: Factory) -> None:
    emu = emulator_factory(running_seconds=0.2)
    client = sdk_client(emu)
    job = create(client, named("refusals"))

    def stop(action: str) -> Any:
        body = m.JobActionType(action_type=action)
        return client.stop_training_job(m.StopTrainingJobRequest(training_job_id=job.metadata.id, body=body))

    status, code, message = refused(lambda: stop("pause"))
    assert (status, code) == (400, "ModelArts.2812") and "pause" in message
    wait_phase(lambda: job_details(client, job.metadata.id), "Completed")
    status, code, message = refused(lambda: stop("terminate"))
    assert (status, code) == (409, "ModelArts.2796") and "Completed" in message


def test_status_changed_conflicts_are_injected_and_reproducible(emulator_factory: Factory) -> None:
    always = emulator_factory(running_seconds=30, terminate_conflict_rate=1.0)
    client = sdk_client(always)
    job = create(client, named("conflicted"))
    stop = m.StopTrainingJobRequest(training_job_id=job.metadata.id, body=m.JobActionType("terminate"))
    status, code, message = refused(lambda: client.stop_training_job(stop))
    assert (status, code) == (409, "ModelArts.2878") and "try again later" in message
    assert (
        wait_phase(lambda: job_details(client, job.metadata.id), "Running").status.phase == "Running"
    )  # nothing changed

    def outcomes(seed: int) -> list[int]:
        emu = emulator_factory(running_seconds=30, terminate_conflict_rate=0.5, seed=seed)
        client = sdk_client(emu)
        codes = []
        for i in range(12):
            job = create(client, named(f"job-{i}"))
            request = m.StopTrainingJobRequest(
                training_job_id=job.metadata.id, body=m.JobActionType("terminate")
            )
            try:
                codes.append(client.stop_training_job(request).status_code)
            except ClientRequestException as error:
                codes.append(error.status_code)
        return codes

    first = outcomes(5)
    assert first == outcomes(5)
    assert set(first) == {202, 409}


# -- throttling -------------------------------------------------------------------------------------------


def test_modelarts_throttles_with_its_own_code(emulator_factory: Factory) -> None:
    emu = emulator_factory(throttle_rate=1.0, throttle_code="ModelArts.2799")
    client = sdk_client(emu)
    status, code, _ = refused(lambda: search(client))
    assert (status, code) == (429, "ModelArts.2799")
    answer = httpx.post(emu.api_url("/training-job-searches"), json={}, auth=emu.auth(), timeout=10)
    assert answer.status_code == 429 and "Retry-After" not in answer.headers


def test_mixed_throttling_answers_both_codes(emulator_factory: Factory) -> None:
    def codes(seed: int) -> list[str]:
        emu = emulator_factory(throttle_rate=1.0, throttle_code="mixed", seed=seed)
        with httpx.Client(auth=emu.auth(), timeout=10) as http:
            answers = [http.post(emu.api_url("/training-job-searches"), json={}) for _ in range(20)]
        assert {a.status_code for a in answers} == {429}
        return [a.json()["error_code"] for a in answers]

    first = codes(11)
    assert set(first) == {"APIG.0308", "ModelArts.2799"}
    assert first == codes(11)


# -- search -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filters", "code", "field"),
    [
        ([{"key": "colour", "operator": "in", "value": ["red"]}], "ModelArts.2789", "filters[0].key"),
        (
            [{"key": "name", "operator": "in", "value": ["a"], "colour": 1}],
            "ModelArts.2807",
            "filters[0].colour",
        ),
        ([{"operator": "in", "value": ["a"]}], "ModelArts.2807", "filters[0]"),
        ([{"key": "name", "operator": "equals", "value": ["a"]}], "ModelArts.2808", "filters[0].operator"),
        ([{"key": "create_time", "operator": "in", "value": ["1"]}], "ModelArts.2808", "filters[0].operator"),
        ([{"key": "name", "operator": "in", "value": [str(i) for i in range(11)]}], "ModelArts.2809", "10"),
        ([{"key": "phase", "operator": "in", "value": ["Sleeping"]}], "ModelArts.2809", "Sleeping"),
        ([{"key": "kind", "operator": "in", "value": ["batch"]}], "ModelArts.2809", "batch"),
        ([{"key": "priority", "operator": "in", "value": ["high"]}], "ModelArts.2809", "integers"),
        (
            [{"key": "create_time", "operator": "between", "value": ["0", str(32 * 24 * 3600 * 1000)]}],
            "ModelArts.2809",
            "31 days",
        ),
    ],
)
def test_search_refusals(emulator: EmulatorProcess, filters: list[Any], code: str, field: str) -> None:
    client = sdk_client(emulator)
    status, got, message = refused(lambda: search(client, filters=filters))
    assert (status, got) == (400, code) and field in message


def test_search_sort_by_refusal_and_the_documented_filter_keys(emulator_factory: Factory) -> None:
    emu = emulator_factory(creating_seconds=0.1, pending_seconds=0.1, running_seconds=30)
    client = sdk_client(emu)
    assert refused(lambda: search(client, sort_by="colour"))[:2] == (400, "ModelArts.2790")
    create(client, named("plain"))
    pooled_body = {
        "kind": "job",
        "metadata": {"name": "pooled", "training_experiment_reference": {"id": "exp-1"}},
        "algorithm": {"id": "algo-7"},
        "spec": {
            "resource": {"flavor_id": "modelarts.pool.visual.xlarge", "pool_id": "pool-a", "node_count": 2},
            "runtime_type": "development",
            "schedule_policy": {"priority": 3},
        },
    }
    pooled = create(client, pooled_body)

    def names(key: str, operator: str, *values: str) -> list[str]:
        answer = search(
            client,
            sort_by="name",
            order="asc",
            filters=[{"key": key, "operator": operator, "value": list(values)}],
        )
        return [item.metadata.name for item in answer.items]

    assert names("id", "in", pooled.metadata.id) == ["pooled"]
    assert names("id", "not", pooled.metadata.id) == ["plain"]
    assert names("algorithm_id", "in", "algo-7") == ["pooled"]
    assert names("pool_id", "in", "pool-a") == ["pooled"]
    assert names("training_experiment_id", "in", "exp-1") == ["pooled"]
    assert names("runtime_type", "in", "production") == ["plain"]
    assert names("priority", "in", "3") == ["pooled"]
    assert names("priority", "in", "1") == ["plain"]
    assert names("user_id", "in", "anyone") == ["plain", "pooled"]
    assert names("phase", "in", "Creating", "Pending", "Running") == ["plain", "pooled"]

    wait_phase(lambda: job_details(client, pooled.metadata.id), "Running")
    host_ip = raw_tasks_on_hosts(emu)
    on_host = search(client, host_ips=[host_ip])
    assert [item.metadata.name for item in on_host.items] == ["pooled"]
    assert [(t.task, t.host_ip) for t in on_host.items[0].status.task_ips] == [("worker-0", host_ip)]
    assert search(client, host_ips=["10.9.9.9"]).count == 0
    assert search(client, tags=[{"key": "team", "values": ["a"]}]).count == 0
    assert search(client, workspace_id="0").count == 2
    assert search(client, workspace_id="f" * 32).count == 0


def raw_tasks_on_hosts(emu: EmulatorProcess) -> str:
    """The host IP of the pooled job's first task, found by asking every plausible host: none is guessable."""
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        everything = http.post(emu.api_url("/training-job-searches"), json={}).json()["items"]
        assert all("task_ips" not in job["status"] for job in everything)
        for third in range(256):
            host = f"192.168.{third}.10"
            answer = http.post(emu.api_url("/training-job-searches"), json={"host_ips": [host]}).json()
            if answer["count"]:
                return host
    raise AssertionError("no job runs on a 192.168.x.10 host")


# -- answers beyond the seeds -----------------------------------------------------------------------------

SDK_EXTRAS: dict[str, Any] = {
    "kind": "job",
    "metadata": {"name": "extras", "training_experiment_reference": {"id": "exp-9", "name": "trial"}},
    "algorithm": {
        "engine": {
            "engine_name": "PyTorch",
            "engine_version": "2.1",
            "image_url": "swr.example.com/team/train:1",
            "install_sys_packages": True,
            "image_repo_id": "repo-7",
        },
        "command": "python train.py",
        "inputs": [
            {
                "name": "data",
                "access_method": "parameter",
                "remote": {"dataset": {"id": "d1", "version_id": "v1", "service_type": "obs", "name": "ds"}},
            }
        ],
        "outputs": [{"name": "out", "access_method": "parameter", "remote": {"obs": {"obs_url": "/b/out/"}}}],
    },
    "spec": {
        "resource": {
            "pool_group_id": "group-1",
            "node_count": 1,
            "main_container_customized_flavor": {"cpu_core_num": 4, "mem_size": 16.5, "accelerator_num": 1},
        },
        "volumes": [
            {"pfs": {"pfs_path": "/pfs/a", "local_path": "/mnt/a"}},
            {"obs": {"obs_path": "/b/c", "local_path": "/mnt/c"}},
        ],
        "log_export_config": {"version": "v2", "rotation_enabled": True},
        "notification": {"topic_urn": "urn:smn:topic", "events": ["JobFailed"]},
        "custom_metrics": [{"http_get": {"path": "/metrics", "port": 8080}}],
        "output_model": {"obs": {"obs_path": "/b/model/", "local_path": "/model"}},
        "asset_model": {"name": "m", "version": "1"},
        "asset_id": "asset-1",
        "reserved_time": {"time_unit": "HOURS", "duration": 1},
    },
    "endpoints": {"ssh": {"key_pair_names": ["kp-1"]}},
    "train_type": "job",
}


def test_answers_carry_the_service_fields_and_echo_the_sdk_fields(emulator_factory: Factory) -> None:
    emu = emulator_factory(creating_seconds=0.1, pending_seconds=0.1, running_seconds=0.2)
    client = sdk_client(emu)
    free = create(client, named("defaults"))
    assert free.metadata.annotations == {"job_template": "Template DL"}
    assert free.spec.resource.policy == "regular"
    extras = create(client, copy.deepcopy(SDK_EXTRAS))
    assert extras.metadata.training_experiment_reference.id == "exp-9"
    assert extras.algorithm.engine.image_repo_id == "repo-7"
    assert extras.algorithm.engine.install_sys_packages is True
    assert extras.endpoints.ssh.key_pair_names == ["kp-1"]
    assert extras.status.retention_time == 0  # reserved_time given: kept time counts once it stops
    done = wait_phase(lambda: job_details(client, extras.metadata.id), "Completed")
    assert done.status.running_records[0].recover_records == []
    kept = poll(
        lambda: raw_job(emu, extras.metadata.id)["status"]["retention_time"],
        lambda seconds: seconds > 0,
        timeout=5,
        what="kept time counting once the job stopped",
    )
    assert kept > 0

    raw = raw_job(emu, extras.metadata.id)
    for section in ("spec", "endpoints", "train_type"):
        sent = SDK_EXTRAS[section]
        got = raw[section]
        if isinstance(sent, dict):
            assert {k: got[k] for k in sent if k != "resource"} == {
                k: v for k, v in sent.items() if k != "resource"
            }
        else:
            assert got == sent
    assert raw["spec"]["runtime_type"] == "production"
    resource = raw["spec"]["resource"]
    assert (
        resource["main_container_customized_flavor"]
        == SDK_EXTRAS["spec"]["resource"]["main_container_customized_flavor"]
    )
    assert raw["algorithm"]["inputs"][0]["remote"]["dataset"]["service_type"] == "obs"
    assert raw["algorithm"]["outputs"][0]["access_method"] == "parameter"
    assert raw["metadata"]["training_experiment_reference"] == {"id": "exp-9", "name": "trial"}

    plain = raw_job(emu, free.metadata.id)
    assert "retention_time" not in plain["status"] and "task_ips" not in plain["status"]
    assert json.dumps(plain).count("recover_records") == 1
