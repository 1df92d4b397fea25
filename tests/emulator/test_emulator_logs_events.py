"""A job's log preview and events, driven through the official SDK's client.

The log does not exist before the job runs (204, no content), grows while it runs, and ends the way the job
ended; events record every phase change, with an Error on failure, and answer the page's query parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess

from ..official_sdk import job_details, sdk_client, sdk_module
from ..support import poll, wait_phase

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.exceptions.exceptions import ClientRequestException  # noqa: E402
from huaweicloudsdkmodelarts.v1 import model as m  # noqa: E402

Factory = Callable[..., EmulatorProcess]
# Fails 0.45 s into a 1 s run: after 4 of its 10 progress steps.
FAILING = {
    "emulator/running-seconds": "1",
    "emulator/fail-after-seconds": "0.45",
    "emulator/exit-code": "137",
    "emulator/failure-message": "CUDA out of memory",
}


def job_body(name: str, annotations: dict[str, str] | None = None, node_count: int = 1) -> dict[str, Any]:
    return {
        "kind": "job",
        "metadata": {"name": name, "annotations": annotations or {}},
        "algorithm": {
            "code_dir": "obs://bucket/code/",
            "boot_file": "obs://bucket/code/train.py",
            "engine": {"engine_name": "PyTorch", "engine_version": "pytorch_1.8.0"},
            "environments": {"API_TOKEN": "not-for-logs"},
        },
        "spec": {"resource": {"flavor_id": "modelarts.vm.cpu.8u", "node_count": node_count}},
    }


def create(client: Any, body: dict[str, Any]) -> str:
    return str(client.create_training_job(m.CreateTrainingJobRequest(body=body)).metadata.id)


def preview(client: Any, job_id: str, task: str = "worker-0") -> Any:
    return client.show_training_job_logs_preview(
        m.ShowTrainingJobLogsPreviewRequest(training_job_id=job_id, task_id=task)
    )


def events(client: Any, job_id: str, **query: Any) -> Any:
    return client.list_training_job_events(m.ListTrainingJobEventsRequest(training_job_id=job_id, **query))


def answer(call: Callable[[], Any]) -> int:
    """The HTTP status of the SDK's call: its answer's, or its refusal's."""
    try:
        return int(call().status_code)
    except ClientRequestException as refusal:
        return int(refusal.status_code)


def refused(call: Callable[[], Any]) -> tuple[int, str, str]:
    with pytest.raises(ClientRequestException) as caught:
        call()
    return caught.value.status_code, caught.value.error_code, caught.value.error_msg


# -- logs -------------------------------------------------------------------------------------------------


def test_a_log_appears_when_the_job_runs_and_grows(emulator_factory: Factory) -> None:
    # A progress line every 0.4 s: the log grows while the job runs.
    emu = emulator_factory(creating_seconds=0.3, pending_seconds=0.3, running_seconds=4)
    client = sdk_client(emu)
    job_id = create(client, job_body("growing", node_count=2))
    before = preview(client, job_id)
    assert before.status_code == 204 and before.content is None
    wait_phase(lambda: job_details(client, job_id), "Running")
    early = poll(lambda: preview(client, job_id), lambda p: p.status_code == 200, timeout=5, what="a log")
    later = poll(
        lambda: preview(client, job_id),
        lambda p: p.current_size != early.current_size,
        timeout=5,
        what="the log grown",
    )
    assert early.status_code == later.status_code == 200
    assert 0 < early.current_size < later.current_size == later.full_size
    assert later.content.startswith(early.content)
    assert len(later.content.encode()) == later.current_size
    assert "running: python /home/ma-user/modelarts/user-job-dir/code/train.py" in later.content
    assert "step 1/10" in later.content and "not-for-logs" not in later.content
    assert "task worker-1" in preview(client, job_id, "worker-1").content
    wait_phase(lambda: job_details(client, job_id), "Completed", timeout=10)
    done = preview(client, job_id).content.splitlines()
    assert "step 10/10" in done[-3] and done[-1].endswith("training completed, exit code 0")


def test_a_failed_jobs_log_ends_with_its_failure(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    job_id = create(client, job_body("failing", FAILING))
    wait_phase(lambda: job_details(client, job_id), "Failed")
    lines = preview(client, job_id).content.splitlines()
    assert lines[-5:-1] == [
        "Traceback (most recent call last):",
        '  File "/home/ma-user/modelarts/user-job-dir/code/train.py", line 42, in <module>',
        "    main()",
        "RuntimeError: CUDA out of memory",
    ]
    assert lines[-1].endswith("training failed, exit code 137")
    assert [line.split()[2] for line in lines if " step " in line] == [f"{i}/10" for i in range(1, 5)]


def test_the_log_tail_hook_sets_the_last_lines(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    tail = "Killed\nsegfault in worker: core dumped"
    job_id = create(client, job_body("tailed", {**FAILING, "emulator/log-tail": tail}))
    wait_phase(lambda: job_details(client, job_id), "Failed")
    assert preview(client, job_id).content.endswith("step 4/10 loss=0.6328\n" + tail + "\n")
    assert "Traceback" not in preview(client, job_id).content


def test_the_log_echo_env_hook_prints_an_environment_variable_on_each_progress_line(
    emulator: EmulatorProcess,
) -> None:
    client = sdk_client(emulator)
    job_id = create(client, job_body("careless", {**FAILING, "emulator/log-echo-env": "API_TOKEN"}))
    wait_phase(lambda: job_details(client, job_id), "Failed")
    steps = [line for line in preview(client, job_id).content.splitlines() if " step " in line]
    assert len(steps) == 4 and all(line.endswith(" API_TOKEN=not-for-logs") for line in steps), steps


def test_log_refusals(emulator_factory: Factory) -> None:
    emu = emulator_factory(creating_seconds=30)
    client = sdk_client(emu)
    never_ran = create(client, job_body("never-ran"))
    assert refused(lambda: preview(client, never_ran, "worker-7"))[:2] == (400, "ModelArts.2763")
    stop = m.StopTrainingJobRequest(training_job_id=never_ran, body=m.JobActionType("terminate"))
    client.stop_training_job(stop)
    wait_phase(lambda: job_details(client, never_ran), "Terminated")
    status, code, message = refused(lambda: preview(client, never_ran))
    assert (status, code) == (400, "ModelArts.2818") and never_ran in message
    assert refused(lambda: preview(client, "no-such-job"))[:2] == (400, "ModelArts.2775")

    quick = emulator_factory(running_seconds=0.1)
    client = sdk_client(quick)
    cleared = create(client, job_body("cleared", {"emulator/logs-cleared-after-seconds": "1"}))
    wait_phase(lambda: job_details(client, cleared), "Completed")
    assert preview(client, cleared).status_code == 200
    gone = poll(
        lambda: answer(lambda: preview(client, cleared)),
        lambda status: status != 200,
        timeout=5,
        what="the log cleared",
    )
    assert gone == 400 and refused(lambda: preview(client, cleared))[:2] == (400, "ModelArts.2819")


def test_a_terminated_jobs_log_ends_with_the_signal(emulator_factory: Factory) -> None:
    emu = emulator_factory(running_seconds=30)
    client = sdk_client(emu)
    job_id = create(client, job_body("stopped"))
    wait_phase(lambda: job_details(client, job_id), "Running")
    stop = m.StopTrainingJobRequest(training_job_id=job_id, body=m.JobActionType("terminate"))
    client.stop_training_job(stop)
    wait_phase(lambda: job_details(client, job_id), "Terminated")
    assert (
        preview(client, job_id)
        .content.splitlines()[-1]
        .endswith("received SIGTERM: the training job was terminated")
    )


# -- events -----------------------------------------------------------------------------------------------


def test_events_record_the_phases_and_the_failure(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    job_id = create(client, job_body("eventful", FAILING))
    wait_phase(lambda: job_details(client, job_id), "Failed")
    answer = events(client, job_id, order="asc")
    assert (answer.total, answer.offset, answer.limit, answer.order) == (6, 0, 50, "asc")
    assert [(e.level, e.source, e.message) for e in answer.events] == [
        ("Info", "Job", "Training job eventful created."),
        ("Info", "Job", "Training job is queuing for resources."),
        ("Info", "K8S", "Task worker-0 scheduled and started."),
        ("Info", "Job", "Training job is running."),
        ("Error", "Task", "Task worker-0 exited with code 137: CUDA out of memory"),
        ("Error", "Job", "Training job failed: CUDA out of memory"),
    ]
    times = [e.time for e in answer.events]
    assert times == sorted(times) and all(t.endswith("Z") for t in times)
    newest_first = events(client, job_id)
    assert newest_first.order == "desc" and newest_first.events == answer.events[::-1]

    errors = events(client, job_id, level="Error")
    assert errors.total == 2 and {e.level for e in errors.events} == {"Error"}
    assert [e.message for e in events(client, job_id, pattern="QUEUING").events] == [
        "Training job is queuing for resources."
    ]
    pages = [events(client, job_id, order="asc", limit=4, offset=page).events for page in (0, 1, 2)]
    assert [len(page) for page in pages] == [4, 2, 0]
    assert pages[0] + pages[1] == answer.events


def test_events_of_a_waiting_and_a_terminated_job(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    job_id = create(client, job_body("parked", {"emulator/stay-pending": "true"}))
    wait_phase(lambda: job_details(client, job_id), "Pending")
    warnings = events(client, job_id, level="Warning").events
    assert [(e.source, e.message) for e in warnings] == [
        ("K8S", "No node has the resources the job asks for; it keeps waiting.")
    ]
    stop = m.StopTrainingJobRequest(training_job_id=job_id, body=m.JobActionType("terminate"))
    client.stop_training_job(stop)
    wait_phase(lambda: job_details(client, job_id), "Terminated")
    messages = [e.message for e in events(client, job_id, order="asc").events]
    assert messages[-2:] == ["Termination requested; stopping the training job.", "Training job terminated."]
    assert not any("running" in message for message in messages)


def test_events_in_a_time_window_and_refused_queries(emulator: EmulatorProcess) -> None:
    client = sdk_client(emulator)
    job_id = create(client, job_body("windowed"))
    wait_phase(lambda: job_details(client, job_id), "Completed")
    created = client.show_training_job_details(m.ShowTrainingJobDetailsRequest(training_job_id=job_id))
    start_ms = created.metadata.create_time
    first = events(client, job_id, order="asc", start_time=str(start_ms), end_time=str(start_ms + 100))
    assert [e.message for e in first.events] == ["Training job windowed created."]
    assert (first.start_time, first.end_time) == (str(start_ms), str(start_ms + 100))
    for query, field in [
        ({"limit": 101}, "limit"),
        ({"limit": 0}, "limit"),
        ({"offset": -1}, "offset"),
        ({"level": "Debug"}, "level"),
        ({"order": "random"}, "order"),
        ({"start_time": str(start_ms)}, "end_time"),
        ({"pattern": "x" * 257}, "pattern"),
    ]:
        status, code, message = refused(lambda q=query: events(client, job_id, **q))
        assert (status, code) == (400, "ModelArts.2763") and field in message
    assert refused(lambda: events(client, "no-such-job"))[:2] == (400, "ModelArts.2775")
