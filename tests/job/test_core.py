"""The core operations called directly, as any front-end calls them: plain data in, plain results out.

Against the emulator (a real server process) and, for answers it cannot give on demand, a scripted server.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.generated import fields
from pulumi_modelarts.job import core, recorded
from pulumi_modelarts.job.errors import InvalidInputsError, ProvisioningError
from pulumi_modelarts.job.normalising import NOT_KNOWN
from pulumi_modelarts.job.waiting import giving_up as reports
from pulumi_modelarts.job.waiting import stopping
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.errors import ModelArtsError
from pulumi_modelarts.wire.models import TrainingJob

from ..httpserver import ScriptedServer, json_reply
from ..support import ProgressLines, minimal_job, poll
from .core_support import JOB_ID, await_phase, inputs, live, live_phase, operations, scripted

pytestmark = pytest.mark.usefixtures("fast_polls")


def unnamed(**overrides: Any) -> dict[str, Any]:
    """Inputs without a job name, as the resources hand them over: check names the job after name_prefix."""
    fields = {"metadata": {"description": "nightly"}, "name_prefix": "train", **overrides}
    return minimal_job(node_count=1.0, **fields)


# ------------------------------------------------------------------------------------------------ check


def test_check_gives_plain_failures_with_paths() -> None:
    checked = core.check({}, inputs(spec={"resource": {"flavor_id": "f", "node_count": 0}}, wait_for="soon"))
    found = dict(checked.failures)
    assert found["spec.resource.node_count"] == "must be at least 1"
    assert "must be one of" in found["wait_for"]
    assert all(isinstance(f, core.Failure) for f in checked.failures)
    assert checked.inputs["kind"] == "job"
    assert core.check({}, inputs()).inputs["spec"]["resource"]["node_count"] == 1  # the engine's 1.0


def test_on_destroy_takes_its_two_choices_in_any_case_and_agrees_with_keep_record() -> None:
    for chosen in ("terminate", "delete", "DELETE", " Terminate "):
        assert core.check({}, inputs(on_destroy=chosen)).failures == []
    found = dict(core.check({}, inputs(on_destroy="remove")).failures)
    assert found["on_destroy"] == "must be one of 'terminate', 'delete', got 'remove'"
    # The older spelling alone, or agreeing, is fine; disagreeing, it is refused naming both.
    assert core.check({}, inputs(keep_record=False)).failures == []
    assert core.check({}, inputs(keep_record=False, on_destroy="delete")).failures == []
    [(path, why)] = core.check({}, inputs(keep_record=True, on_destroy="delete")).failures
    assert "on_destroy 'delete' and keep_record true disagree" in why and "set on_destroy alone" in why, path
    assert core.check({}, inputs(keep_record="no")).failures == [("keep_record", "must be true or false")]


def test_check_names_each_problem_at_its_path() -> None:
    news = inputs(
        spec={"resource": {"flavor_id": "f", "node_count": 0.0}},
        wait_for="started",
        wait_timeout="10 fortnights",
        replace_when_failed="yes",
        bogus=1,
    )
    news["algorithm"]["inputs"] = [{"name": "data"}]
    found = dict(core.check({}, news).failures)
    assert found["spec.resource.node_count"] == "must be at least 1"
    assert found["algorithm.inputs[0].remote"] == "is required"
    assert "must be one of" in found["wait_for"]
    assert "not a duration" in found["wait_timeout"]
    assert found["replace_when_failed"] == "must be true or false"
    assert "unknown property" in found["bogus"]


def test_check_refuses_bad_names_and_timeouts() -> None:
    news = inputs(wait_timeout=0.0)
    news["metadata"] = {"name": "bad name!"}
    found = dict(core.check({}, news).failures)
    assert "letters, digits" in found["metadata.name"]
    assert found["wait_timeout"].startswith("must be positive")
    too_long = inputs()
    too_long["metadata"] = {"name": "x" * 65}
    assert "metadata.name" in dict(core.check({}, too_long).failures)


def test_check_names_the_job_once_and_keeps_the_name() -> None:
    first = core.check({}, unnamed())
    assert first.failures == []
    name = first.inputs["metadata"]["name"]
    assert re.fullmatch(r"train-[a-z0-9]{6}", name)
    assert first.inputs["metadata"]["description"] == "nightly"
    # The next check (olds = previous inputs) keeps the name, even with a new prefix.
    assert core.check(first.inputs, unnamed()).inputs["metadata"]["name"] == name
    assert core.check(first.inputs, unnamed(name_prefix="renamed")).inputs["metadata"]["name"] == name
    # Auto-names are deterministic: the same declaration gets the same name (a re-run after a killed
    # `pulumi up` meets the job it started); another stack, other inputs or triggers get another one.
    again = {core.check({}, unnamed()).inputs["metadata"]["name"] for _ in range(5)}
    assert again == {name}
    others = {
        core.check({}, unnamed(**extra)).inputs["metadata"]["name"]
        for extra in ({"name_scope": "proj/dev"}, {"name_scope": "proj/prod"}, {"triggers": [1]})
    }
    assert name not in others and len(others) == 3
    # An explicit name wins.
    assert core.check(first.inputs, unnamed(metadata={"name": "mine"})).inputs["metadata"]["name"] == "mine"


def test_check_tolerates_unknowns_and_still_validates_the_rest() -> None:
    news = unnamed(spec={"resource": {"flavor_id": NOT_KNOWN, "node_count": 1.0}}, wait_for=NOT_KNOWN)
    news["algorithm"]["engine"] = {"image_url": NOT_KNOWN}
    checked = core.check({}, news)
    assert checked.failures == []
    assert checked.inputs["spec"]["resource"]["flavor_id"] is NOT_KNOWN
    news["algorithm"]["outputs"] = [{"name": "model"}]  # missing remote: still reported
    assert [f.path for f in core.check({}, news).failures] == ["algorithm.outputs[0].remote"]
    assert core.check({}, unnamed(algorithm=NOT_KNOWN, spec=NOT_KNOWN, metadata=NOT_KNOWN)).failures == []


def test_check_answers_even_when_the_inputs_break_it() -> None:
    class Hostile(dict[str, Any]):
        def items(self) -> Any:
            raise RuntimeError("cannot list these")

    checked = core.check({}, Hostile(kind="job"))
    assert checked.failures == [core.Failure("", "the inputs could not be checked: cannot list these")]


# ------------------------------------------------------------------------------------------------ plan


def test_plan_replaces_a_job_whose_creation_failed_when_asked_and_says_why() -> None:
    declared = core.check({}, inputs(replace_when_failed=True)).inputs
    stored = {
        "declared_inputs": declared,
        "phase": "Abnormal",
        "secondary_phase": "CreateFailed",
        "name": "n",
    }
    said = ProgressLines()
    decision = core.plan("id-1", stored, declared, said)
    assert decision.replaces == ["status"] and decision.delete_before_replace
    assert said.lines == [
        "training job n will be replaced: the job was last seen Abnormal and replace_when_failed is set"
    ]
    failed = {key: value for key, value in stored.items() if key != "secondary_phase"}
    assert core.plan("id-1", {**failed, "phase": "Failed"}, declared, ProgressLines()).replaces == ["status"]
    running = core.plan("id-1", {**stored, "secondary_phase": "Running", "phase": "Running"}, declared, said)
    assert running.replaces == [] and running.changes is False


# ------------------------------------------------------------------------------------------------ create


def test_create_waits_and_reports_progress(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    said = ProgressLines()
    created = core.create(inputs(wait_for="running"), client, said)
    assert created.id and created.outputs["metadata"]["id"] == created.id
    assert created.outputs["phase"] in ("Running", "Completed")
    assert created.outputs["declared_inputs"]["wait_for"] == "running"
    assert said.lines[0] == f"training job core-job (id {created.id}) created, phase Creating"
    assert any(
        re.fullmatch(rf"core-job \(id {created.id}\) Running after \d+\.\ds", line) for line in said.lines
    )
    assert said.asked == 0  # nothing to decide: the engine is not asked


@pytest.mark.parametrize(
    ("wait_for", "phases"),
    [
        ("none", {"Creating", "Pending", "Running", "Completed"}),
        ("pending", {"Pending", "Running", "Completed"}),
        ("running", {"Running", "Completed"}),
        ("completed", {"Completed"}),
    ],
)
def test_create_waits_as_wait_for_says(
    emulator: EmulatorProcess, client: ModelArtsAPI, wait_for: str, phases: set[str]
) -> None:
    created = core.create(inputs(wait_for=wait_for), client, ProgressLines())
    outputs = created.outputs
    assert created.id and outputs["metadata"]["id"] == created.id
    assert outputs["phase"] in phases
    assert outputs["status"]["phase"] == outputs["phase"]
    assert outputs["metadata"]["name"] == "core-job"
    assert outputs["declared_inputs"]["metadata"]["name"] == "core-job"
    assert outputs["kind"] == "job"
    assert outputs["spec"]["resource"]["flavor_id"] == "modelarts.vm.cpu.2u"
    json.dumps(outputs)  # JSON-friendly
    if wait_for == "completed":
        assert live_phase(emulator, created.id) == "Completed"


def test_create_keeps_environment_variables_in_their_secret_output_only(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    declared = inputs(wait_for="none")
    declared["algorithm"]["environments"] = {"API_TOKEN": "s3cr3t-env-value"}
    outputs = core.create(declared, client, ProgressLines()).outputs
    assert outputs["environments"] == {"API_TOKEN": "s3cr3t-env-value"}
    secret_outputs = {"declared_inputs", "environments", "endpoints"}  # the resources' secret outputs
    public = {k: v for k, v in outputs.items() if k not in secret_outputs}
    assert "s3cr3t-env-value" not in json.dumps(public)
    assert "environments" not in outputs["algorithm"]
    assert outputs["algorithm"]["command"] == "python train.py"


def test_create_refuses_invalid_inputs_before_any_call(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    emulator.reset_stats()
    with pytest.raises(InvalidInputsError) as info:
        core.create(inputs(spec={"resource": {"node_count": 1}}), client, ProgressLines())
    assert [path for path, _ in info.value.failures] == ["spec.resource.flavor_id"]
    assert str(info.value).startswith("the training job inputs are not valid: spec.resource.flavor_id: ")
    assert isinstance(info.value, ValueError)
    assert operations(emulator) == {}


def test_a_timed_out_create_terminates_its_job_while_the_engine_listens(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines(listening=True)
    with pytest.raises(ProvisioningError) as info:
        core.create(
            inputs({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=0.3), client, said
        )
    assert "the job was terminated" in str(info.value)
    assert said.asked == 1
    assert any(line.endswith("; terminating it") for line in said.lines)
    assert operations(emulator).get("terminate") == 1


def test_a_timed_out_create_says_where_the_job_stood_and_stops_it(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    pending = inputs({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=1.0)
    with pytest.raises(ProvisioningError) as info:
        core.create(pending, client, ProgressLines())
    text = str(info.value)
    assert "did not reach running within" in text
    assert "still Pending" in text
    assert "the job was terminated" in text
    job_id = re.search(r"\(id ([^)]+)\)", text)
    assert job_id is not None
    await_phase(emulator, job_id.group(1), "Terminated")


def test_a_wait_that_fails_unexpectedly_terminates_the_job_and_hides_credentials(
    emulator: EmulatorProcess, client: ModelArtsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a ModelArtsError (a bug, or a library error the client does not translate): the job already exists
    # and the engine will never learn its id, so it must be stopped before the error is reported.
    terminated: list[str] = []
    terminate, get_job = client.terminate_job, client.get_job

    def broken_get_job(job_id: str) -> Any:
        # An arbitrary exception's text could echo anything, a credential included: it must be scrubbed.
        if not terminated:  # the polls fail; the reads that see the terminate through work
            raise RuntimeError(f"unexpected failure while polling (key {emulator.secret_key})")
        return get_job(job_id)

    def recorded_terminate(job_id: str) -> Any:
        terminated.append(job_id)
        return terminate(job_id)

    pending = inputs({"emulator/stay-pending": "true"}, wait_for="running")
    with monkeypatch.context() as patched, pytest.raises(ProvisioningError) as info:
        patched.setattr(client, "get_job", broken_get_job)
        patched.setattr(client, "terminate_job", recorded_terminate)
        core.create(pending, client, ProgressLines())
    text = str(info.value)
    assert "unexpected failure while polling" in text
    assert emulator.secret_key not in text
    assert "the job was terminated" in text
    job_id = re.search(r"\(id ([^)]+)\)", text)
    assert job_id is not None
    await_phase(emulator, job_id.group(1), "Terminated")


def test_a_front_end_limit_bounds_the_wait_below_wait_timeout(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines(listening=True)
    started = time.monotonic()
    with pytest.raises(ProvisioningError) as info:
        core.create(
            inputs({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout="30m"),
            client,
            said,
            limit=0.3,
        )
    assert time.monotonic() - started < 20
    assert "(customTimeouts)" in str(info.value) and "the job was terminated" in str(info.value)
    assert operations(emulator).get("terminate") == 1


def test_a_cancelled_create_stops_waiting_and_terminates_its_job(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines(listening=True)
    stop = threading.Event()

    def cancel_once_polled() -> None:  # the deployment is cancelled while the create waits for its job
        poll(lambda: operations(emulator).get("get", 0), bool, timeout=10.0, what="a poll of the new job")
        stop.set()

    threading.Thread(target=cancel_once_polled, daemon=True).start()
    with pytest.raises(ProvisioningError) as info:
        core.create(
            inputs({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout="30m"),
            client,
            said,
            stop=stop,
        )
    text = str(info.value)
    assert "when the deployment was cancelled" in text and "the job was terminated" in text
    assert operations(emulator).get("terminate") == 1


def test_a_timed_out_create_leaves_its_job_alone_once_the_engine_is_gone(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines(listening=False)
    with pytest.raises(ProvisioningError) as info:
        core.create(
            inputs({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=0.3), client, said
        )
    text = str(info.value)
    assert "did not reach running within" in text and "could NOT be terminated" in text
    job_id = re.search(r"\(id ([^)]+)\)", text)
    assert job_id is not None
    assert said.asked == 1
    # create is synchronous: a terminate it had sent would be counted already.
    assert "terminate" not in operations(emulator)
    assert live_phase(emulator, job_id.group(1)) == "Pending"


def test_a_job_whose_creation_failed_ends_the_wait() -> None:
    created = {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": "Creating"}}
    broken = {
        "metadata": {"id": JOB_ID, "name": "core-job"},
        "status": {"phase": "Abnormal", "secondary_phase": "CreateFailed", "task_statuses": [
            {"task": "worker-0", "message": "image pull failed"}]},
    }  # fmt: skip
    with ScriptedServer() as server:
        server.queue(json_reply(created, 201), json_reply(created), json_reply(broken))
        said = ProgressLines()
        with (
            scripted(server) as http,
            pytest.raises(ProvisioningError) as info,
        ):
            core.create(inputs(wait_for="completed"), http, said)
    text = str(info.value)
    assert text.splitlines()[0] == f"training job core-job (id {JOB_ID}) ended Abnormal (creation failed)."
    assert "secondary phase CreateFailed" in text and "image pull failed" in text
    assert "nothing is left running" in text
    # Nothing to terminate (the failure report's log and events reads aside).
    job_calls = [r for r in server.requests if "/logs/" not in r.path and "/events" not in r.path]
    assert [r.method for r in job_calls] == ["POST", "GET", "GET"]
    assert said.asked == 0


# ---------------------------------------------------------------------------------------------- read, update


def test_read_keeps_the_declared_inputs_and_knows_a_vanished_job(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    created = core.create(inputs(wait_for="none"), client, ProgressLines())
    found = core.read(created.id, created.outputs, client, ProgressLines())
    assert found is not None and found.id == created.id
    assert found.outputs["declared_inputs"] == created.outputs["declared_inputs"]
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        http.delete(emulator.api_url(f"/training-jobs/{created.id}")).raise_for_status()
    said = ProgressLines()
    assert core.read(created.id, created.outputs, client, said) is None
    assert said.lines == [f"training job {created.id} no longer exists"]


def test_a_refresh_after_an_out_of_band_terminate_shows_it_and_plans_nothing(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    declared = core.check({}, inputs({"emulator/running-seconds": "30"}, wait_for="running")).inputs
    created = core.create(declared, client, ProgressLines())
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        terminate = {"action_type": "terminate"}
        http.post(emulator.api_url(f"/training-jobs/{created.id}/actions"), json=terminate).raise_for_status()
    await_phase(emulator, created.id, "Terminated")
    found = core.read(created.id, created.outputs, client, ProgressLines())
    assert found is not None and found.id == created.id
    assert found.outputs["phase"] == "Terminated"
    assert found.outputs["declared_inputs"] == created.outputs["declared_inputs"]
    again = core.check(declared, inputs({"emulator/running-seconds": "30"}, wait_for="running")).inputs
    decision = core.plan(created.id, found.outputs, again, ProgressLines())
    assert decision.changes is False and decision.replaces == []


def test_update_changes_the_description_in_place(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    created = core.create(inputs(wait_for="none"), client, ProgressLines())
    news = inputs(wait_for="none")
    news["metadata"]["description"] = "weekly"
    emulator.reset_stats()
    updated = core.update(created.id, created.outputs, news, client, ProgressLines())
    assert operations(emulator).get("update") == 1
    assert "create" not in operations(emulator)
    assert updated.id == created.id
    assert updated.outputs["metadata"]["id"] == created.id
    assert updated.outputs["metadata"]["description"] == "weekly"
    assert updated.outputs["declared_inputs"]["metadata"]["description"] == "weekly"
    assert live(emulator, created.id)["metadata"]["description"] == "weekly"
    # Provider settings alone: not one call, outputs kept whole but for the inputs recorded.
    emulator.reset_stats()
    settings_only = inputs(wait_for="running", on_destroy="delete")
    settings_only["metadata"]["description"] = "weekly"
    again = core.update(created.id, updated.outputs, settings_only, client, ProgressLines())
    assert operations(emulator) == {}
    assert again.outputs["declared_inputs"]["wait_for"] == "running"
    assert again.outputs["declared_inputs"]["on_destroy"] == "delete"
    assert {**again.outputs, "declared_inputs": None} == {**updated.outputs, "declared_inputs": None}


def test_an_update_of_settings_alone_is_known_before_any_client_is_opened() -> None:
    old = {"metadata": {"id": JOB_ID}, "phase": "Running", "declared_inputs": inputs()}
    stored = core.stored_update(JOB_ID, old, inputs(on_destroy="delete", wait_timeout="1h"))
    assert stored is not None and stored.id == JOB_ID
    recorded = stored.outputs["declared_inputs"]
    assert (recorded["on_destroy"], recorded["wait_timeout"]) == ("delete", "1h")
    assert {**stored.outputs, "declared_inputs": None} == {**old, "declared_inputs": None}
    described = inputs()
    described["metadata"]["description"] = "weekly"
    assert core.stored_update(JOB_ID, old, described) is None  # the job itself changes
    assert core.stored_update(JOB_ID, old, inputs(tags={"team": "nlp"})) is None  # tags are the job's
    assert core.stored_update(JOB_ID, {"phase": "Running"}, inputs()) is None  # nothing declared to judge by


def test_a_front_end_limit_bounds_an_update_the_service_keeps_refusing(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    created = core.create(
        inputs({"emulator/throttle-updates": "true"}, wait_for="none"), client, ProgressLines()
    )
    news = inputs({"emulator/throttle-updates": "true"}, wait_for="none")
    news["metadata"]["description"] = "weekly"
    started = time.monotonic()
    with pytest.raises(ProvisioningError) as info:
        core.update(created.id, created.outputs, news, client, ProgressLines(), limit=6.0)
    assert time.monotonic() - started < 10
    text = str(info.value)
    assert f"training job {created.id} could not be updated within 6.0s (customTimeouts)" in text, text
    assert "ModelArts.2799" in text and "the job runs on unchanged" in text, text
    assert operations(emulator)["update"] >= 2  # it did retry within the limit
    assert client.transport.max_retry_seconds == 120.0  # the client's own budget is back for later calls


# ------------------------------------------------------------------------------------------------ delete


def test_delete_terminates_and_waits_until_the_job_stopped(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    created = core.create(
        inputs({"emulator/running-seconds": "30"}, wait_for="running"), client, ProgressLines()
    )
    said = ProgressLines()
    core.delete(created.id, client, said)
    assert live_phase(emulator, created.id) == "Terminated"
    assert said.lines[0] == f"training job core-job (id {created.id}) terminating"
    assert re.fullmatch(rf"training job core-job \(id {created.id}\) Terminated after .+", said.lines[-1])


def test_delete_gives_up_on_a_job_stuck_terminating(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stopping, "DELETE_WAIT_SECONDS", 0.2)

    def job(phase: str) -> dict[str, Any]:
        return {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": phase}}

    with ScriptedServer() as server:
        server.queue(json_reply(job("Running")), json_reply(job("Terminating"), 202))
        server.handler = lambda _request: json_reply(job("Terminating"))
        with (
            scripted(server) as http,
            pytest.raises(ProvisioningError) as info,
        ):
            core.delete(JOB_ID, http, ProgressLines())
    assert re.fullmatch(
        rf"training job core-job \(id {JOB_ID}\) is still Terminating after 0\.\ds; "
        r"run `pulumi destroy` \(or `pulumi up`\) again to finish deleting it",
        str(info.value),
    )


def test_on_destroy_delete_refused_leaves_the_stopped_job_out_of_the_state_saying_its_record_stays() -> None:
    def job(phase: str) -> dict[str, Any]:
        return {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": phase}}

    def answer(request: Any) -> Any:
        if request.method == "DELETE":
            return json_reply({"error_code": "ModelArts.0203", "error_msg": "not authorized to delete"}, 403)
        return json_reply(job("Terminated"))

    outputs = {"declared_inputs": inputs(on_destroy="delete")}
    with ScriptedServer() as server:
        server.queue(json_reply(job("Running")), json_reply(job("Terminating"), 202))
        server.handler = answer
        said = ProgressLines()
        with scripted(server) as http:
            core.delete(JOB_ID, http, said, outputs)  # no error: the job has stopped, it leaves the state
        methods = [r.method for r in server.requests]
    assert methods.count("DELETE") == 1 and "POST" in methods  # terminated first, the record's delete refused
    [warning] = [line for line in said.lines if line.startswith("warning:")]
    assert "has stopped (Terminated) but its record could not be deleted" in warning, said.lines
    assert "not authorized to delete" in warning and "its name stays taken" in warning, warning


def test_freeing_a_held_name_still_fails_when_the_delete_is_refused() -> None:
    held = {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": "Terminated"}}
    with ScriptedServer() as server:
        server.handler = lambda _r: json_reply({"error_code": "ModelArts.0203", "error_msg": "no"}, 403)
        with scripted(server) as http, pytest.raises(ModelArtsError) as info:
            stopping.delete_record(
                http, TrainingJob.model_validate(held), ProgressLines(), stopping.delete_bound(None)
            )
    assert "ModelArts.0203" in str(info.value)


def test_a_front_end_limit_bounds_the_wait_for_a_terminated_job_to_stop(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    created = core.create(
        inputs({"emulator/terminating-seconds": "60"}, wait_for="running"), client, ProgressLines()
    )
    started = time.monotonic()
    with pytest.raises(ProvisioningError) as info:
        core.delete(created.id, client, ProgressLines(), created.outputs, limit=0.5)
    assert time.monotonic() - started < 10
    assert re.fullmatch(
        rf"training job core-job \(id {created.id}\) is still Terminating after \d\.\ds \(customTimeouts\); "
        r"run `pulumi destroy` \(or `pulumi up`\) again to finish deleting it, or allow the delete more "
        r"time in the resource's customTimeouts",
        str(info.value),
    ), str(info.value)
    assert live_phase(emulator, created.id) == "Terminating"
    # A limit above the built-in wait changes nothing: a quick job is simply stopped.
    quick = core.create(inputs(wait_for="running") | {"metadata": {"name": "quick"}}, client, ProgressLines())
    core.delete(quick.id, client, ProgressLines(), quick.outputs, limit=10_000.0)
    assert live_phase(emulator, quick.id) == "Terminated"


def test_delete_of_a_completed_job_is_quiet(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    created = core.create(
        inputs({"emulator/running-seconds": "0"}, wait_for="completed"), client, ProgressLines()
    )
    assert live_phase(emulator, created.id) == "Completed"
    said = ProgressLines()
    emulator.reset_stats()
    core.delete(created.id, client, said)
    assert said.lines == []
    assert "terminate" not in operations(emulator)
    assert live_phase(emulator, created.id) == "Completed"


def test_delete_of_a_job_already_gone_is_fine(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    created = core.create(inputs(wait_for="none"), client, ProgressLines())
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        http.delete(emulator.api_url(f"/training-jobs/{created.id}")).raise_for_status()
    core.delete(created.id, client, ProgressLines(), created.outputs)


# ------------------------------------------------------------------------------------------- failure report

FAILING = {
    "emulator/fail-after-seconds": "0.1",
    "emulator/running-seconds": "5",
    "emulator/exit-code": "137",
    "emulator/failure-message": "CUDA out of memory",
}


def failed_create(client: ModelArtsAPI, annotations: Mapping[str, str], **overrides: Any) -> str:
    with pytest.raises(ProvisioningError) as info:
        core.create(
            inputs({**FAILING, **annotations}, wait_for="completed", **overrides), client, ProgressLines()
        )
    return str(info.value)


def test_a_failed_job_reports_its_log_tail_and_error_events(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    # The log echoes the access key and an environment variable's value: neither may reach the error.
    tail = "\n".join(
        [*(f"epoch {i}" for i in range(30)), f"key={emulator.access_key} token=s3cr3t-value", "x" * 500]
    )
    algorithm = {
        "engine": {"image_url": "org/img:1"},
        "command": "python train.py",
        "environments": {"TOKEN": "s3cr3t-value"},
    }
    text = failed_create(client, {"emulator/log-tail": tail}, algorithm=algorithm)
    assert "ended Failed" in text and "exit code 137" in text
    lines = text.splitlines()
    start = lines.index("  last 20 log lines of task worker-0:")
    logged = lines[start + 1 : start + 21]
    assert logged[0] == "    | epoch 12" and logged[-3] == "    | epoch 29"
    assert logged[-2] == "    | key=*** token=***"
    assert logged[-1].startswith("    | xxx") and len(logged[-1]) <= 6 + reports.REPORT_LINE_CHARS
    events = lines.index("  recent error events (2):")
    assert "Job: Training job failed: CUDA out of memory" in lines[events + 1]
    assert "Task: Task worker-0 exited with code 137: CUDA out of memory" in lines[events + 2]
    assert emulator.access_key not in text and "s3cr3t-value" not in text


def test_a_job_failing_in_the_wait_is_named_reported_and_left_failed(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    text = failed_create(client, {})
    assert "training job core-job (id " in text
    assert "ended Failed" in text
    assert "phase Failed" in text
    assert "exit code 137" in text
    assert "CUDA out of memory" in text
    assert "nothing is left running" in text
    with httpx.Client(auth=emulator.auth(), timeout=10) as http:
        jobs = http.post(emulator.api_url("/training-job-searches"), json={"filters": []}).json()["items"]
    mine = [j for j in jobs if j["metadata"]["name"] == "core-job"]
    assert len(mine) == 1 and mine[0]["status"]["phase"] == "Failed"


def test_a_failure_report_says_when_the_log_is_gone(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    text = failed_create(client, {"emulator/logs-cleared-after-seconds": "0"})
    assert "  the log of task worker-0 was not available (ModelArts.2819: " in text
    assert "  recent error events (2):" in text
    assert "nothing is left running" in text


def test_a_failure_report_never_fails_the_error(
    emulator: EmulatorProcess, client: ModelArtsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(client, "get_log_preview", broken)
    monkeypatch.setattr(client, "list_events", broken)
    text = failed_create(client, {})
    assert "ended Failed" in text
    assert "  the log of task worker-0 was not available (boom)" in text
    assert "  the job's events were not available (boom)" in text


def test_a_stopped_or_timed_out_job_has_no_failure_report(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    with pytest.raises(ProvisioningError) as info:
        pending = inputs({"emulator/stay-pending": "true"}, wait_for="running", wait_timeout=0.3)
        core.create(pending, client, ProgressLines())
    assert "log" not in str(info.value) and "events" not in str(info.value)


def test_outputs_and_listings_keep_every_environment_variable_and_token_out_of_plain_fields() -> None:
    from pulumi_modelarts.wire.models import TrainingJob as WireJob

    job = WireJob.model_validate(
        {
            "metadata": {"id": "j-1", "name": "hetero"},
            "status": {"phase": "Running"},
            "algorithm": {"command": "run", "environments": [{"TOKEN": "top-level-secret"}]},
            "tasks": [
                {"role": "worker", "algorithm": {"code_dir": "/c", "environments": {"KEY": "task-secret"}}}
            ],
            "endpoints": {"jupyter_lab": {"url": "https://x", "token": "endpoint-token"}},
        }
    )
    outputs = recorded.job_outputs(job, None)
    plain = {k: v for k, v in outputs.items() if k not in fields.SECRET_OUTPUTS}
    for secret in ("top-level-secret", "task-secret", "endpoint-token"):
        assert secret not in str(plain), secret
    assert outputs["endpoints"]["jupyter_lab"]["token"] == "endpoint-token"  # kept, in the secret output
    listed = recorded.public_job(job)
    for secret in ("top-level-secret", "task-secret", "endpoint-token"):
        assert secret not in str(listed), secret
    assert listed["tasks"][0]["algorithm"]["code_dir"] == "/c"


# ------------------------------------------------------------------------------------------------ log lines


def logged_inputs(**overrides: Any) -> dict[str, Any]:
    hooks = {"emulator/running-seconds": "2", "emulator/log-echo-env": "TOKEN"}
    job = inputs(hooks, wait_for="completed", **overrides)
    job["algorithm"]["environments"] = {"TOKEN": "env-s3cr3t-value"}
    return job


def test_create_shows_new_log_lines_while_it_waits_for_completed(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    progress = ProgressLines()
    created = core.create(logged_inputs(), client, progress)
    assert created.outputs["phase"] == "Completed"
    assert all(s.startswith("core-job worker-0: ") for s in progress.statuses), progress.statuses
    steps = [re.search(r" step (\d+)/10 loss=\S+ TOKEN=\*\*\*$", s) for s in progress.statuses]
    assert len([found for found in steps if found]) >= 2, progress.statuses  # the secret hidden
    numbers = [int(found.group(1)) for found in steps if found]
    assert numbers == sorted(set(numbers)), numbers  # only new lines
    assert not any("env-s3cr3t-value" in line for line in progress.lines + progress.statuses)


def test_show_logs_false_reads_no_log(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    progress = ProgressLines()
    emulator.reset_stats()
    core.create(logged_inputs(show_logs=False), client, progress)
    assert "logs" not in operations(emulator) and progress.statuses == []


@pytest.mark.parametrize("trouble", ["throttled", "hangs"])
def test_a_log_read_that_fails_or_hangs_never_fails_or_slows_the_wait(
    emulator: EmulatorProcess, client: ModelArtsAPI, monkeypatch: pytest.MonkeyPatch, trouble: str
) -> None:
    from pulumi_modelarts.wire.api_errors import ThrottledError

    release = threading.Event()
    calls: list[str] = []

    def read(job_id: str, task: str, *, attempts: int | None = None) -> Any:
        calls.append(task)
        assert attempts == 1  # never the client's own retries
        if trouble == "hangs":
            release.wait(30)
        raise ThrottledError(429, "ModelArts.2799", "too many requests")

    monkeypatch.setattr(client, "get_log_preview", read)
    progress = ProgressLines()
    started = time.monotonic()
    try:
        created = core.create(logged_inputs(), client, progress)
    finally:
        release.set()
    assert created.outputs["phase"] == "Completed" and calls
    assert time.monotonic() - started < 6  # a 2 s run; a hanging read would hold it for 30 s
    assert progress.statuses == []
    if trouble == "throttled":
        # After each refusal the pause doubles: far fewer reads than polls.
        assert len(calls) <= 3, calls


def test_outputs_carry_what_the_service_sent_not_empty_defaults() -> None:
    from pulumi_modelarts.wire.models import TrainingJob as WireJob

    sent: dict[str, Any] = {
        "kind": "job",
        "metadata": {"id": "j-1", "name": "lean"},
        "status": {"phase": "Running", "task_statuses": []},
        "algorithm": {"id": "a-1", "parameters": [{"name": "p", "value": "v"}]},
        "spec": {"resource": {"flavor_id": "f", "node_count": 1}},
    }
    outputs = recorded.job_outputs(WireJob.model_validate(sent), {"kind": "job"})
    # Every output is there (the schema requires each); inside them, only what was sent.
    assert outputs["algorithm"] == sent["algorithm"]
    assert outputs["spec"] == sent["spec"] and outputs["metadata"] == sent["metadata"]
    assert outputs["status"] == sent["status"]  # an empty list the service did send stays
    assert outputs["tasks"] == [] and outputs["endpoints"] == {} and outputs["environments"] == {}
