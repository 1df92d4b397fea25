"""The emulator over real HTTP: endpoints, errors, lifecycle, search, stats, auth, faults and hooks."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess, start_emulator
from pulumi_modelarts.wire import auth

from ..support import poll, wait_phase

Factory = Callable[..., EmulatorProcess]

# The first example request of the create page (free flavor, algorithm by id).
SEED_FREE_JOB: dict[str, Any] = {
    "kind": "job",
    "metadata": {"name": "TestModelArtsJob", "description": "This is a ModelArts job"},
    "algorithm": {
        "id": "3f5d6706-7b67-408d-8ba0-ec08048c45ed",
        "parameters": [
            {"name": "input_dir", "value": "obs://cn-north-4-rse/test/moxingtest-dir/"},
            {"name": "input_file", "value": "obs://cn-north-4-rse/test/moxingtest/"},
            {"name": "large_file_method", "value": "1"},
        ],
        "policies": {"auto_search": None},
        "environments": {},
    },
    "spec": {
        "resource": {"flavor_id": "modelarts.p3.large.public.free", "node_count": 1},
        "log_export_path": {"obs_url": ""},
    },
}


def job_body(name: str, annotations: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "kind": "job",
        "metadata": metadata,
        "algorithm": {
            "code_dir": "obs://bucket/code/",
            "boot_file": "obs://bucket/code/train.py",
            "engine": {
                "engine_name": "PyTorch",
                "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04",
            },
            "inputs": [{"name": "data_url", "remote": {"obs": {"obs_url": "obs://bucket/data/"}}}],
            "outputs": [{"name": "train_url", "remote": {"obs": {"obs_url": "obs://bucket/out/"}}}],
            "environments": {"A": "1", "B": "2"},
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": 2}},
        **extra,
    }


@pytest.fixture(scope="module")
def shared() -> Iterator[EmulatorProcess]:
    """One emulator for the tests that only check refusals (they never change its state)."""
    with start_emulator() as emu:
        yield emu


@pytest.fixture
def http(emulator: EmulatorProcess) -> Iterator[httpx.Client]:
    with httpx.Client(auth=emulator.auth(), timeout=10) as client:
        yield client


def create(http: httpx.Client, emu: EmulatorProcess, body: dict[str, Any]) -> dict[str, Any]:
    response = http.post(emu.api_url("/training-jobs"), json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def after_millisecond(epoch_ms: int) -> None:
    """Return once this machine's clock, the emulator's too, is past the millisecond epoch_ms (so a job
    created next has a later create_time)."""
    poll(
        lambda: int(time.time() * 1000),
        lambda now: now > epoch_ms,
        timeout=1,
        what="a later millisecond",
        interval=0.001,
    )


def get(http: httpx.Client, emu: EmulatorProcess, job_id: str) -> dict[str, Any]:
    response = http.get(emu.api_url(f"/training-jobs/{job_id}"))
    assert response.status_code == 200, response.text
    return dict(response.json())


def search(http: httpx.Client, emu: EmulatorProcess, **body: Any) -> httpx.Response:
    return http.post(emu.api_url("/training-job-searches"), json=body)


def assert_error(response: httpx.Response, status: int, code: str, *words: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers.get("X-Request-Id")
    body = dict(response.json())
    assert body["error_code"] == code, body
    for word in words:
        assert word in body["error_msg"], body
    return body


# -- startup --


def test_starts_quickly_and_prints_credentials() -> None:
    started = time.monotonic()
    with start_emulator() as emu:
        elapsed = time.monotonic() - started
        assert emu.url.startswith("http://127.0.0.1:")
        assert (emu.access_key, emu.secret_key) == ("EMULATORAK000000000", "emulator-secret-key")
        assert emu.project_id == "0123456789abcdef0123456789abcdef"
        assert "ModelArts emulator listening on " + emu.url in emu.output()
    assert emu.process.poll() is not None  # stopped by the context manager
    assert elapsed < 5, f"startup took {elapsed:.2f}s"


# -- create and read --


def test_create_answers_like_the_service(emulator: EmulatorProcess, http: httpx.Client) -> None:
    before = int(time.time() * 1000)
    response = http.post(emulator.api_url("/training-jobs"), json=SEED_FREE_JOB)
    assert response.status_code == 201, response.text
    assert response.headers["X-Request-Id"]
    job = response.json()
    meta = job["metadata"]
    assert uuid.UUID(meta["id"])
    assert before <= meta["create_time"] <= int(time.time() * 1000)
    assert meta["name"] == "TestModelArtsJob" and meta["description"] == "This is a ModelArts job"
    assert meta["workspace_id"] == "0" and meta["user_name"]
    assert job["kind"] == "job"
    assert job["status"]["phase"] == "Creating" and job["status"]["secondary_phase"] == "Creating"
    assert job["status"]["duration"] == 0 and job["status"]["start_time"] == 0
    resource = job["spec"]["resource"]
    assert resource["policy"] == "regular"
    assert resource["flavor_name"] == "Computing GPU(Vnt1) instance"
    assert resource["flavor_detail"]["flavor_type"] == "GPU"
    assert job["spec"]["log_export_path"] == {}
    params = job["algorithm"]["parameters"]
    assert [p["name"] for p in params] == ["input_dir", "input_file", "large_file_method"]
    assert all(p["constraint"]["type"] == "String" for p in params)
    assert job["algorithm"]["policies"] == {}
    assert job["algorithm"]["environments"] == []
    assert get(http, emulator, meta["id"])["metadata"] == meta


def test_inputs_outputs_and_environments_are_filled(emulator: EmulatorProcess, http: httpx.Client) -> None:
    job = create(http, emulator, job_body("filled"))
    algorithm = job["algorithm"]
    assert algorithm["inputs"][0]["local_dir"] == "/home/ma-user/modelarts/inputs/data_url_0"
    assert algorithm["outputs"][0]["local_dir"] == "/home/ma-user/modelarts/outputs/train_url_0"
    assert algorithm["environments"] == [{"A": "1"}, {"B": "2"}]
    assert job["status"]["tasks"] == ["worker-0", "worker-1"]
    assert job["spec"]["resource"]["flavor_detail"]["flavor_info"]["cpu"]["core_num"] == 8


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["spec"]["resource"].update(node_count=0), "spec.resource.node_count"),
        (lambda b: b["metadata"].update(name="bad name!"), "metadata.name"),
        (lambda b: b["metadata"].update(colour="red"), "metadata.colour"),
        (
            lambda b: b["metadata"].update(annotations={"emulator/fail-after-seconds": "soon"}),
            "fail-after-seconds",
        ),
    ],
)
def test_invalid_create_names_the_field(
    shared: EmulatorProcess, change: Callable[[dict[str, Any]], None], field: str
) -> None:
    body = job_body("invalid")
    change(body)
    with httpx.Client(auth=shared.auth(), timeout=10) as http:
        response = http.post(shared.api_url("/training-jobs"), json=body)
        error = assert_error(response, 400, "ModelArts.2763", field)
        assert error["error_solution"]
        assert search(http, shared).json()["total"] == 0


def test_malformed_json_is_refused(emulator: EmulatorProcess, http: httpx.Client) -> None:
    response = http.post(
        emulator.api_url("/training-jobs"), content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "ModelArts.2763", "JSON")


def test_unknown_job_is_modelarts_2775_everywhere(emulator: EmulatorProcess, http: httpx.Client) -> None:
    missing = str(uuid.uuid4())
    url = emulator.api_url(f"/training-jobs/{missing}")
    assert_error(http.get(url), 400, "ModelArts.2775", missing)
    assert_error(http.put(url, json={"description": "x"}), 400, "ModelArts.2775")
    assert_error(http.delete(url), 400, "ModelArts.2775")
    assert_error(http.post(f"{url}/actions", json={"action_type": "terminate"}), 400, "ModelArts.2775")


def test_unknown_route_is_a_service_shaped_404(emulator: EmulatorProcess, http: httpx.Client) -> None:
    assert_error(http.get(emulator.api_url("/no-such-thing")), 404, "APIG.0101")


# -- update and delete --


def test_update_description_only(emulator: EmulatorProcess, http: httpx.Client) -> None:
    job_id = create(http, emulator, job_body("described"))["metadata"]["id"]
    url = emulator.api_url(f"/training-jobs/{job_id}")
    assert http.put(url, json={"description": "new words"}).status_code == 204
    assert get(http, emulator, job_id)["metadata"]["description"] == "new words"
    assert_error(http.put(url, json={"description": "x", "name": "renamed"}), 400, "ModelArts.2763", "name")
    assert_error(http.put(url, json={"description": "x" * 257}), 400, "ModelArts.2763", "description")
    assert get(http, emulator, job_id)["metadata"]["name"] == "described"


def test_delete_removes_the_record(emulator: EmulatorProcess, http: httpx.Client) -> None:
    job_id = create(http, emulator, job_body("doomed"))["metadata"]["id"]
    assert http.delete(emulator.api_url(f"/training-jobs/{job_id}")).status_code == 202
    assert_error(http.get(emulator.api_url(f"/training-jobs/{job_id}")), 400, "ModelArts.2775")


# -- lifecycle --


def test_phases_follow_the_clock(emulator_factory: Factory) -> None:
    emu = emulator_factory(creating_seconds=0.3, pending_seconds=0.3, running_seconds=0.3)
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        job = create(http, emu, job_body("clocked"))
        job_id, created = job["metadata"]["id"], job["metadata"]["create_time"]
        seen: list[tuple[str, str]] = []

        def observed() -> dict[str, Any]:
            """The job's status now, each new (phase, secondary phase) pair noted, a running one checked."""
            status: dict[str, Any] = get(http, emu, job_id)["status"]
            pair = (status["phase"], status["secondary_phase"])
            if not seen or seen[-1] != pair:
                seen.append(pair)
            if status["phase"] == "Running":
                assert status["start_time"] == created + 600
                assert status["duration"] >= 0
            return status

        final = poll(
            observed,
            lambda status: status["phase"] == "Completed",
            timeout=5,
            what="the job completed",
            interval=0.03,
        )
    assert seen == [
        ("Creating", "Creating"),
        ("Pending", "Queuing"),
        ("Running", "Running"),
        ("Completed", "Completed"),
    ]
    assert final["duration"] == 300
    assert final["task_statuses"] == [
        {"task": "worker-0", "exit_code": 0, "message": ""},
        {"task": "worker-1", "exit_code": 0, "message": ""},
    ]


def test_fail_after_hook(emulator: EmulatorProcess, http: httpx.Client) -> None:
    hooks = {
        "emulator/fail-after-seconds": "0.1",
        "emulator/exit-code": "137",
        "emulator/failure-message": "out of memory",
        "emulator/running-seconds": "30",
    }
    job = create(http, emulator, job_body("failing", hooks))
    failed = wait_phase(lambda: get(http, emulator, job["metadata"]["id"]), "Failed")
    status = failed["status"]
    assert status["secondary_phase"] == "Failed"
    assert status["duration"] == 100
    assert status["task_statuses"][0] == {"task": "worker-0", "exit_code": 137, "message": "out of memory"}
    assert job["metadata"]["annotations"]["emulator/exit-code"] == "137"


def test_stay_pending_and_running_seconds_hooks(emulator: EmulatorProcess, http: httpx.Client) -> None:
    pending = create(http, emulator, job_body("parked", {"emulator/stay-pending": "true"}))["metadata"]["id"]
    long = create(http, emulator, job_body("long", {"emulator/running-seconds": "30"}))["metadata"]["id"]
    normal = create(http, emulator, job_body("normal"))["metadata"]["id"]
    wait_phase(lambda: get(http, emulator, normal), "Completed")
    assert get(http, emulator, pending)["status"]["phase"] == "Pending"
    assert get(http, emulator, long)["status"]["phase"] == "Running"


# -- terminate --


def test_terminate_a_running_job(emulator: EmulatorProcess, http: httpx.Client) -> None:
    job_id = create(http, emulator, job_body("stopper", {"emulator/running-seconds": "30"}))["metadata"]["id"]
    wait_phase(lambda: get(http, emulator, job_id), "Running")
    url = emulator.api_url(f"/training-jobs/{job_id}/actions")
    response = http.post(url, json={"action_type": "terminate"})
    assert response.status_code == 202, response.text
    assert response.json()["status"]["phase"] == "Terminating"
    assert response.json()["metadata"]["id"] == job_id
    done = wait_phase(lambda: get(http, emulator, job_id), "Terminated")
    assert done["status"]["secondary_phase"] == "Terminated"
    assert done["status"]["running_records"][0]["end_reason"] == "job terminated"
    assert_error(http.post(url, json={"action_type": "terminate"}), 409, "ModelArts.2796", "Terminated")


def test_terminating_seconds_hook_keeps_a_terminated_job_terminating(
    emulator: EmulatorProcess, http: httpx.Client
) -> None:
    slow = create(http, emulator, job_body("slow-stop", {"emulator/terminating-seconds": "30"}))["metadata"]
    quick = create(http, emulator, job_body("quick-stop"))["metadata"]
    for job in (slow, quick):
        url = emulator.api_url(f"/training-jobs/{job['id']}/actions")
        assert http.post(url, json={"action_type": "terminate"}).status_code == 202
    wait_phase(lambda: get(http, emulator, quick["id"]), "Terminated")
    assert get(http, emulator, slow["id"])["status"]["phase"] == "Terminating"
    create_response = http.post(
        emulator.api_url("/training-jobs"), json=job_body("bad", {"emulator/terminating-seconds": "soon"})
    )
    assert_error(create_response, 400, "ModelArts.2763", "emulator/terminating-seconds")


def test_report_phase_hook_shows_an_unlisted_phase_and_refuses_its_terminate(
    emulator: EmulatorProcess, http: httpx.Client
) -> None:
    unlisted = {"emulator/report-phase": "Exploding", "emulator/running-seconds": "30"}
    refused = create(http, emulator, job_body("exploding", unlisted))["metadata"]["id"]
    accepted = create(
        http, emulator, job_body("stoppable", {**unlisted, "emulator/report-phase-terminable": "true"})
    )["metadata"]["id"]
    later = create(
        http, emulator, job_body("later", {**unlisted, "emulator/report-phase-after-seconds": "30"})
    )["metadata"]["id"]
    status = get(http, emulator, refused)["status"]
    assert (status["phase"], status["secondary_phase"]) == ("Exploding", "Exploding")
    assert get(http, emulator, later)["status"]["phase"] in ("Creating", "Pending", "Running")
    # The terminate page's rule: only Creating, Pending and Running jobs can be terminated.
    url = emulator.api_url(f"/training-jobs/{refused}/actions")
    assert_error(http.post(url, json={"action_type": "terminate"}), 409, "ModelArts.2796", "Exploding")
    assert get(http, emulator, refused)["status"]["phase"] == "Exploding"
    # With report-phase-terminable the terminate is accepted, and the job then shows its real phases.
    url = emulator.api_url(f"/training-jobs/{accepted}/actions")
    answer = http.post(url, json={"action_type": "terminate"})
    assert answer.status_code == 202 and answer.json()["status"]["phase"] == "Terminating", answer.text
    wait_phase(lambda: get(http, emulator, accepted), "Terminated")
    bad = http.post(emulator.api_url("/training-jobs"), json=job_body("bad", {"emulator/report-phase": " "}))
    assert_error(bad, 400, "ModelArts.2763", "emulator/report-phase")


def test_throttle_updates_hook_answers_every_description_update_429(
    emulator: EmulatorProcess, http: httpx.Client
) -> None:
    throttled = create(http, emulator, job_body("busy", {"emulator/throttle-updates": "true"}))["metadata"]
    url = emulator.api_url(f"/training-jobs/{throttled['id']}")
    for _ in range(2):
        answer = assert_error(http.put(url, json={"description": "new words"}), 429, "ModelArts.2799")
        assert answer["error_solution"]
    assert get(http, emulator, throttled["id"])["metadata"].get("description") != "new words"
    # Only updates: reads, terminates and other jobs' updates are answered as usual.
    other = create(http, emulator, job_body("calm"))["metadata"]["id"]
    assert http.put(emulator.api_url(f"/training-jobs/{other}"), json={"description": "x"}).status_code == 204
    actions = emulator.api_url(f"/training-jobs/{throttled['id']}/actions")
    assert http.post(actions, json={"action_type": "terminate"}).status_code == 202


def test_terminate_while_creating_and_refused_when_finished(emulator_factory: Factory) -> None:
    emu = emulator_factory(creating_seconds=30)
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        job_id = create(http, emu, job_body("early"))["metadata"]["id"]
        url = emu.api_url(f"/training-jobs/{job_id}/actions")
        assert_error(http.post(url, json={"action_type": "pause"}), 400, "ModelArts.2812", "action_type")
        assert http.post(url, json={"action_type": "terminate"}).status_code == 202
        status = wait_phase(lambda: get(http, emu, job_id), "Terminated")["status"]
        assert status["start_time"] == 0 and status["duration"] == 0


def test_terminate_a_completed_job_is_refused(emulator: EmulatorProcess, http: httpx.Client) -> None:
    job_id = create(http, emulator, job_body("finished"))["metadata"]["id"]
    wait_phase(lambda: get(http, emulator, job_id), "Completed")
    url = emulator.api_url(f"/training-jobs/{job_id}/actions")
    error = assert_error(
        http.post(url, json={"action_type": "terminate"}), 409, "ModelArts.2796", "Completed"
    )
    assert "Creating, Pending or Running" in error["error_msg"]


# -- search --


def test_search_filters_sorting_and_pages(emulator_factory: Factory) -> None:
    emu = emulator_factory(creating_seconds=30)
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        names = ["alpha-1", "beta-1", "alpha-2", "gamma", "alpha-3"]
        jobs = []
        for name in names:
            jobs.append(create(http, emu, job_body(name)))
            after_millisecond(jobs[-1]["metadata"]["create_time"])  # distinct create times
        times = [j["metadata"]["create_time"] for j in jobs]

        everything = search(http, emu).json()
        assert (everything["total"], everything["count"]) == (5, 5)
        assert (everything["offset"], everything["limit"], everything["sort_by"], everything["order"]) == (
            0,
            10,
            "create_time",
            "desc",
        )
        assert [i["metadata"]["name"] for i in everything["items"]] == names[::-1]

        like = search(http, emu, filters=[{"key": "name", "operator": "like", "value": ["ALPHA"]}]).json()
        assert (like["total"], like["count"]) == (5, 3)
        assert {i["metadata"]["name"] for i in like["items"]} == {"alpha-1", "alpha-2", "alpha-3"}

        between = [{"key": "create_time", "operator": "between", "value": [str(times[1]), str(times[3])]}]
        got = search(http, emu, filters=between, order="asc").json()
        assert [i["metadata"]["name"] for i in got["items"]] == names[1:4]

        by_name = search(http, emu, sort_by="name", order="asc", limit=2, offset=1).json()
        assert [i["metadata"]["name"] for i in by_name["items"]] == ["alpha-3", "beta-1"]
        assert (by_name["offset"], by_name["limit"], by_name["count"]) == (1, 2, 5)
        last_page = search(http, emu, sort_by="name", order="asc", limit=2, offset=2).json()
        assert [i["metadata"]["name"] for i in last_page["items"]] == ["gamma"]
        assert search(http, emu, limit=2, offset=3).json()["items"] == []

        kind = search(http, emu, filters=[{"key": "kind", "operator": "in", "value": ["job"]}]).json()
        assert kind["count"] == 5


def test_search_by_phase(emulator: EmulatorProcess, http: httpx.Client) -> None:
    parked = create(http, emulator, job_body("parked", {"emulator/stay-pending": "true"}))["metadata"]["id"]
    done = create(http, emulator, job_body("done"))["metadata"]["id"]
    wait_phase(lambda: get(http, emulator, done), "Completed")
    pending = search(
        http, emulator, filters=[{"key": "phase", "operator": "in", "value": ["Pending"]}]
    ).json()
    assert [i["metadata"]["id"] for i in pending["items"]] == [parked]
    assert pending["items"][0]["status"]["phase"] == "Pending"
    not_pending = search(
        http, emulator, filters=[{"key": "phase", "operator": "not", "value": ["Pending"]}]
    ).json()
    assert [i["metadata"]["id"] for i in not_pending["items"]] == [done]


def test_search_accepts_the_pages_example_with_blank_filters(
    emulator: EmulatorProcess, http: httpx.Client
) -> None:
    create(http, emulator, job_body("trainjob-1"))
    create(http, emulator, job_body("other"))
    example = {
        "offset": 0,
        "limit": 1,
        "filters": [
            {"key": "name", "operator": "like", "value": ["trainjob"]},
            {"key": "create_time", "operator": "between", "value": ["", ""]},
            {"key": "phase", "operator": "in", "value": [""]},
            {"key": "algorithm_name", "operator": "like", "value": [""]},
            {"key": "kind", "operator": "in", "value": []},
            {"key": "user_id", "operator": "in", "value": [""]},
        ],
    }
    response = http.post(emulator.api_url("/training-job-searches") + "?limit=1", json=example)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["total"], answer["count"], len(answer["items"])) == (2, 1, 1)
    assert answer["items"][0]["metadata"]["name"] == "trainjob-1"
    assert answer["group_by"] == ""


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"limit": 0}, "ModelArts.2763", "limit"),
        ({"limit": 51}, "ModelArts.2763", "limit"),
        ({"offset": -1}, "ModelArts.2763", "offset"),
        ({"order": "sideways"}, "ModelArts.2763", "order"),
        ({"sort_by": "colour"}, "ModelArts.2790", "sort_by"),
        (
            {"filters": [{"key": "colour", "operator": "in", "value": ["red"]}]},
            "ModelArts.2789",
            "filters[0].key",
        ),
        (
            {"filters": [{"key": "phase", "operator": "like", "value": ["Run"]}]},
            "ModelArts.2808",
            "filters[0].operator",
        ),
        (
            {"filters": [{"key": "create_time", "operator": "between", "value": ["1"]}]},
            "ModelArts.2809",
            "filters[0].value",
        ),
    ],
)
def test_search_refuses_bad_requests(
    shared: EmulatorProcess, body: dict[str, Any], code: str, field: str
) -> None:
    with httpx.Client(auth=shared.auth(), timeout=10) as http:
        assert_error(search(http, shared, **body), 400, code, field)


# -- stats --


def test_stats_count_operations_including_refused_ones(emulator: EmulatorProcess, http: httpx.Client) -> None:
    job_id = create(http, emulator, job_body("counted"))["metadata"]["id"]
    get(http, emulator, job_id)
    get(http, emulator, job_id)
    search(http, emulator)
    http.put(emulator.api_url(f"/training-jobs/{job_id}"), json={"description": "d"})
    http.post(emulator.api_url(f"/training-jobs/{job_id}/actions"), json={"action_type": "terminate"})
    http.delete(emulator.api_url(f"/training-jobs/{job_id}"))
    httpx.get(emulator.api_url(f"/training-jobs/{job_id}"))  # unsigned: refused, still counted
    stats = emulator.stats()
    assert stats["requests"] == 8
    assert stats["by_operation"] == {
        "create": 1,
        "get": 3,
        "search": 1,
        "update": 1,
        "terminate": 1,
        "delete": 1,
    }
    assert stats["by_status"]["401"] == 1
    emulator.reset_stats()
    assert emulator.stats() == {"requests": 0, "by_operation": {}, "by_status": {}, "dropped": 0}
    search(http, emulator)
    assert emulator.stats()["by_operation"] == {"search": 1}


# -- persistence --


def test_jobs_survive_a_restart_with_a_data_dir(emulator_factory: Factory, tmp_path: Any) -> None:
    first = emulator_factory(data_dir=tmp_path, creating_seconds=30)
    with httpx.Client(auth=first.auth(), timeout=10) as http:
        job = create(http, first, job_body("durable"))
    first.stop()
    second = emulator_factory(data_dir=tmp_path)
    with httpx.Client(auth=second.auth(), timeout=10) as http:
        again = get(http, second, job["metadata"]["id"])
        assert again["metadata"] == job["metadata"]
        assert again["status"]["phase"] == "Creating"  # the job keeps the timing it was created with
        assert search(http, second).json()["total"] == 1
    third = emulator_factory()  # no data dir: a fresh, empty store
    with httpx.Client(auth=third.auth(), timeout=10) as http:
        assert search(http, third).json()["total"] == 0


# -- authentication --


def test_missing_wrong_and_stale_signatures_are_401(emulator: EmulatorProcess) -> None:
    url = emulator.api_url("/training-job-searches")
    assert_error(httpx.post(url, json={}), 401, "APIG.0301")
    with httpx.Client(auth=auth.AkSkAuth(emulator.access_key, "wrong-secret")) as client:
        assert_error(client.post(url, json={}), 401, "APIG.0301", "signature")
    with httpx.Client(auth=auth.AkSkAuth("SOMEONEELSE", emulator.secret_key)) as client:
        assert_error(client.post(url, json={}), 401, "APIG.0301", "access key")
    stale = auth.utc_sdk_date(datetime.now(timezone.utc) - timedelta(minutes=16))
    with httpx.Client(auth=emulator.auth()) as client:
        assert_error(client.post(url, json={}, headers={"X-Sdk-Date": stale}), 401, "APIG.0301", "X-Sdk-Date")
        recent = auth.utc_sdk_date(datetime.now(timezone.utc) - timedelta(minutes=10))
        assert client.post(url, json={}, headers={"X-Sdk-Date": recent}).status_code == 200


def test_tampered_body_fails_the_signature(emulator: EmulatorProcess) -> None:
    url = emulator.api_url("/training-job-searches")
    signed = httpx.Request("POST", url, json={"limit": 1})
    flow = emulator.auth().sync_auth_flow(signed)
    request = next(flow)
    tampered = httpx.Request(
        "POST", url, content=request.content.replace(b"1", b"2"), headers=dict(request.headers)
    )
    with httpx.Client() as client:
        assert_error(client.send(tampered), 401, "APIG.0301", "signature")
        assert client.send(request).status_code == 200


def test_secrets_never_reach_the_log(emulator_factory: Factory) -> None:
    emu = emulator_factory(log_level="DEBUG", secret_key="very-private-sk-123")
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        create(http, emu, job_body("quiet"))
    # The access line is written after the answer is sent: wait for it rather than read the log too early.
    poll(emu.output, lambda text: "POST /v2/" in text, timeout=10, what="the access line of the create")
    lines = emu.output().splitlines()
    log = "\n".join(line for line in lines if "very-private" not in line or "secret key:" in line)
    assert "Authorization" not in emu.output() and "SDK-HMAC-SHA256" not in emu.output()
    assert [line for line in lines if "very-private-sk-123" in line] == [
        line for line in lines if line.startswith(("  secret key:", "MODELARTS_EMULATOR_READY"))
    ]
    assert "POST /v2/" in log


def test_token_auth(emulator_factory: Factory) -> None:
    emu = emulator_factory(auth_token="token-abc")
    url = emu.api_url("/training-job-searches")
    assert httpx.post(url, json={}, headers={"X-Auth-Token": "token-abc"}).status_code == 200
    assert_error(httpx.post(url, json={}, headers={"X-Auth-Token": "token-xyz"}), 401, "APIG.0301")
    assert '"auth_token": true' in emu.output() and "token-abc" not in emu.output()


def test_token_auth_is_off_by_default(emulator: EmulatorProcess) -> None:
    response = httpx.post(emulator.api_url("/training-job-searches"), json={}, headers={"X-Auth-Token": "x"})
    assert_error(response, 401, "APIG.0301")


def test_another_project_is_403(emulator: EmulatorProcess, http: httpx.Client) -> None:
    other = "f" * 32
    response = http.post(f"{emulator.url}/v2/{other}/training-job-searches", json={})
    assert_error(response, 403, "ModelArts.0105")
    with httpx.Client(
        auth=auth.AkSkAuth(emulator.access_key, emulator.secret_key, project_id=other)
    ) as client:
        assert_error(client.post(emulator.api_url("/training-job-searches"), json={}), 403, "ModelArts.0105")


# -- faults --


def _pattern(emu: EmulatorProcess, count: int) -> list[int]:
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        return [search(http, emu).status_code for _ in range(count)]


def test_faults_are_reproducible_with_a_seed(emulator_factory: Factory) -> None:
    flags = {"throttle_rate": 0.3, "fault_rate": 0.3, "seed": 7}
    first = _pattern(emulator_factory(**flags), 30)
    second = _pattern(emulator_factory(**flags), 30)
    other = _pattern(emulator_factory(**{**flags, "seed": 8}), 30)
    assert first == second
    assert first != other
    assert {429, 200} <= set(first) and set(first) & {500, 503}


def test_throttle_and_server_error_bodies(emulator_factory: Factory) -> None:
    throttled = emulator_factory(throttle_rate=1.0)
    with httpx.Client(auth=throttled.auth(), timeout=10) as http:
        response = search(http, throttled)
        assert_error(response, 429, "APIG.0308")
        assert response.headers["Retry-After"] == "1"
    assert throttled.stats()["by_operation"] == {"search": 1}
    failing = emulator_factory(fault_rate=1.0)
    with httpx.Client(auth=failing.auth(), timeout=10) as http:
        response = http.post(failing.api_url("/training-jobs"), json=job_body("never"))
        assert response.status_code in (500, 503)
        assert response.json()["error_code"] and response.json()["error_msg"]
        assert search(http, failing).status_code in (500, 503)
    assert failing.stats()["by_operation"] == {"create": 1, "search": 1}


def test_drop_after_commit_closes_the_connection_but_keeps_the_job(emulator_factory: Factory) -> None:
    emu = emulator_factory(drop_after_commit_rate=1.0)
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            http.post(emu.api_url("/training-jobs"), json=job_body("ghost"))
        found = search(http, emu, filters=[{"key": "name", "operator": "like", "value": ["ghost"]}]).json()
    assert found["count"] == 1 and found["items"][0]["metadata"]["name"] == "ghost"
    assert emu.stats()["dropped"] == 1


def test_latency_is_added(emulator_factory: Factory) -> None:
    emu = emulator_factory(latency_ms=300)
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        started = time.monotonic()
        assert search(http, emu).status_code == 200
        assert time.monotonic() - started >= 0.3


# -- concurrency --


def test_forty_concurrent_creates_lose_nothing(emulator: EmulatorProcess) -> None:
    with httpx.Client(auth=emulator.auth(), timeout=30, limits=httpx.Limits(max_connections=40)) as http:
        with ThreadPoolExecutor(max_workers=40) as pool:
            created = list(pool.map(lambda i: create(http, emulator, job_body(f"burst-{i}")), range(40)))
        ids = {job["metadata"]["id"] for job in created}
        assert len(ids) == 40
        found: set[str] = set()
        for page in range(3):
            items = search(http, emulator, limit=20, offset=page).json()["items"]
            found |= {item["metadata"]["id"] for item in items}
        assert found == ids
        assert search(http, emulator).json()["total"] == 40


def _until_answered(send: Callable[[], httpx.Response]) -> httpx.Response:
    for _ in range(50):
        response = send()
        if response.status_code != 429:
            return response
    raise AssertionError("throttled 50 times in a row")


def test_reset_makes_a_running_emulator_fresh(emulator_factory: Factory) -> None:
    emu = emulator_factory(throttle_rate=0.5, seed=3)
    before = _pattern(emu, 10)
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        created = _until_answered(lambda: http.post(emu.api_url("/training-jobs"), json=job_body("gone")))
        assert created.status_code == 201
        assert _until_answered(lambda: search(http, emu)).json()["total"] == 1
    emu.reset()
    assert emu.stats()["requests"] == 0
    assert _pattern(emu, 10) == before  # the fault sequence starts again
    with httpx.Client(auth=emu.auth(), timeout=10) as http:
        assert _until_answered(lambda: search(http, emu)).json()["total"] == 0
