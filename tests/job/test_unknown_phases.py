"""A job in a phase this provider does not know (the service adds phases over time) is treated as one that
may still run: a wait that ends on it tries to terminate it, destroy never drops it unverified, refresh and
import warn, and no text claims nothing is left running unless the service said so."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.job import core
from pulumi_modelarts.job.errors import ProvisioningError
from pulumi_modelarts.job.waiting import failure_text, stopping
from pulumi_modelarts.tools import orphans
from pulumi_modelarts.wire import phases
from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.models import TrainingJob

from ..httpserver import Recorded, Reply, ScriptedServer, json_reply
from ..stack_exports import URN, export
from ..support import ProgressLines, minimal_job
from .core_support import JOB_ID, await_phase, inputs, live_phase, operations, scripted

pytestmark = pytest.mark.usefixtures("fast_polls")

NOTHING_LEFT = "nothing is left running"
UNLISTED = {"emulator/report-phase": "Exploding", "emulator/running-seconds": "600"}
STOPPABLE = {**UNLISTED, "emulator/report-phase-terminable": "true"}
NOT_TERMINABLE = {
    "error_code": "ModelArts.2796",
    "error_msg": "The training job cannot be terminated in its current status.",
}


def job(phase: str | None, **status: Any) -> dict[str, Any]:
    return {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": phase, **status}}


def job_id_in(text: str) -> str:
    found = re.search(r"\(id ([^)]+)\)", text)
    assert found is not None, text
    return found.group(1)


def test_only_known_final_phases_say_a_job_no_longer_runs() -> None:
    for phase in ("Creating", "Pending", "Running", "Exploding", "running", "", None):
        assert phases.may_still_run(phase), phase
    for phase in ("Completed", "Failed", "Terminated", "Abnormal", "Terminating"):
        assert not phases.may_still_run(phase), phase
    assert not phases.may_still_run("Exploding", "CreateFailed")  # CreateFailed ends a job whatever
    assert phases.is_known("Running") and not phases.is_known("Exploding") and not phases.is_known(None)


def test_a_failure_that_could_not_stop_the_job_says_how_to_stop_it() -> None:
    text = failure_text.describe_failure(
        name="n",
        job_id="i-1",
        status={"phase": "Exploding"},
        reason="did not reach running within 2s",
        terminated=None,
        notes=["why not"],
    )
    lines = text.splitlines()
    assert lines[-2] == "  why not"
    assert lines[-1].startswith(
        "  the job could NOT be terminated and may still be running: stop training job n"
    )
    assert "(id i-1) in the ModelArts console" in lines[-1]
    assert "POST /v2/{project_id}/training-jobs/i-1/actions" in lines[-1] and NOTHING_LEFT not in text


# ------------------------------------------------------------------------------------------------ create


def test_a_timed_out_wait_on_an_unknown_phase_terminates_the_job(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines()
    with pytest.raises(ProvisioningError) as info:
        core.create(inputs(STOPPABLE, wait_for="running", wait_timeout=0.5), client, said)
    text = str(info.value)
    assert "it was still Exploding" in text and "the job was terminated" in text, text
    assert operations(emulator).get("terminate") == 1
    await_phase(emulator, job_id_in(text), "Terminated")


def test_a_timed_out_wait_on_an_unknown_phase_the_service_will_not_stop_says_it_may_still_run(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines()
    with pytest.raises(ProvisioningError) as info:
        core.create(inputs(UNLISTED, wait_for="running", wait_timeout=0.5), client, said)
    text = str(info.value)
    job_id = job_id_in(text)
    assert operations(emulator).get("terminate") == 1  # tried: the 409 is the service's answer
    assert NOTHING_LEFT not in text and "no longer running" not in text, text
    assert "  phase Exploding is not one this provider knows" in text, text
    assert "  the service refused to terminate it (ModelArts.2796: " in text, text
    assert f"may still be running: stop training job core-job (id {job_id}) in the ModelArts console" in text
    assert live_phase(emulator, job_id) == "Exploding"


def test_a_wait_ending_once_the_engine_is_gone_leaves_an_unknown_phase_alone_and_says_so(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    said = ProgressLines(listening=False)
    with pytest.raises(ProvisioningError) as info:
        core.create(inputs(STOPPABLE, wait_for="running", wait_timeout=0.3), client, said)
    text = str(info.value)
    assert "terminate" not in operations(emulator)
    assert "could NOT be terminated and may still be running" in text and NOTHING_LEFT not in text, text
    assert live_phase(emulator, job_id_in(text)) == "Exploding"


def test_a_refused_terminate_of_a_job_that_has_since_ended_says_so() -> None:
    refused: list[Recorded] = []

    def answer(request: Recorded) -> Reply:
        if request.path.endswith("/actions"):
            refused.append(request)
            return json_reply(NOT_TERMINABLE, 409)
        # Read again after the refusal, the service says it has ended.
        return json_reply(job("Completed" if refused else "Exploding"))

    with ScriptedServer() as server:
        server.queue(json_reply(job("Creating"), 201))
        server.handler = answer
        with scripted(server) as http, pytest.raises(ProvisioningError) as info:
            core.create(inputs(wait_for="running", wait_timeout=0.2), http, ProgressLines())
    assert len(refused) == 1
    text = str(info.value)
    assert "the service refused to terminate it (ModelArts.2796: " in text
    assert "last status: phase Completed" in text
    assert text.endswith("the job is no longer running, so nothing is left running outside the Pulumi state.")


# ------------------------------------------------------------------------------------------ read, delete


def test_refresh_and_import_warn_of_an_unknown_phase(emulator: EmulatorProcess, client: ModelArtsAPI) -> None:
    created = core.create(inputs(UNLISTED, wait_for="none"), client, ProgressLines())
    said = ProgressLines()
    found = core.read(created.id, created.outputs, client, said)
    assert found is not None and found.outputs["phase"] == "Exploding"
    assert said.lines == [
        f"warning: training job core-job (id {created.id}) reports phase Exploding, which this provider does "
        "not know: it is recorded as it is and may still run (a destroy tries to terminate it)"
    ]
    imported = ProgressLines()
    assert core.read(created.id, {}, client, imported) is not None
    assert imported.lines == said.lines


def test_destroy_terminates_a_job_in_an_unknown_phase_and_waits_until_it_stopped(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    created = core.create(inputs(STOPPABLE, wait_for="none"), client, ProgressLines())
    said = ProgressLines()
    core.delete(created.id, client, said, created.outputs)
    assert live_phase(emulator, created.id) == "Terminated"
    assert said.lines[0] == f"training job core-job (id {created.id}) terminating"


def test_destroy_keeps_a_job_in_an_unknown_phase_the_service_will_not_terminate(
    emulator: EmulatorProcess, client: ModelArtsAPI
) -> None:
    created = core.create(inputs(UNLISTED, wait_for="none"), client, ProgressLines())
    outputs = {
        **created.outputs,
        "declared_inputs": {**created.outputs["declared_inputs"], "keep_record": False},
    }
    with pytest.raises(ProvisioningError) as info:
        core.delete(created.id, client, ProgressLines(), outputs)
    text = str(info.value)
    assert text.startswith(
        f"training job core-job (id {created.id}) is in phase Exploding, which this provider does not know, "
        "and the service refuses to terminate it (ModelArts.2796: "
    ), text
    assert "it may still be running, so it stays in the Pulumi state" in text
    assert f"stop training job core-job (id {created.id}) in the ModelArts console" in text
    assert "`pulumi state delete`" in text and NOTHING_LEFT not in text
    assert live_phase(emulator, created.id) == "Exploding"
    assert "delete" not in operations(emulator)  # the record of a job that may run is never deleted


def test_destroy_of_a_job_that_stays_in_an_unknown_phase_after_its_terminate_does_not_call_it_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stopping, "DELETE_WAIT_SECONDS", 0.2)
    with ScriptedServer() as server:
        server.queue(json_reply(job("Exploding")), json_reply(job("Exploding"), 202))
        server.handler = lambda _request: json_reply(job("Exploding"))
        with scripted(server) as http, pytest.raises(ProvisioningError) as info:
            core.delete(JOB_ID, http, ProgressLines())
    assert re.fullmatch(
        rf"training job core-job \(id {JOB_ID}\) is still Exploding after 0\.\ds; "
        r"run `pulumi destroy` \(or `pulumi up`\) again to finish deleting it",
        str(info.value),
    )


def test_a_record_is_never_deleted_while_its_job_is_in_an_unknown_phase() -> None:
    holder = TrainingJob.model_validate(job("Exploding"))
    with ScriptedServer() as server, scripted(server) as http, pytest.raises(ProvisioningError) as info:
        stopping.delete_record(http, holder, ProgressLines(), stopping.delete_bound(None))
    assert server.requests == []
    assert "is in phase Exploding, which this provider does not know: it may still be running" in str(
        info.value
    )


# ------------------------------------------------------------------------------------------------ orphans


def test_the_orphan_finder_tries_to_terminate_an_unknown_phase_and_says_when_it_was_refused(
    emulator: EmulatorProcess,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in emulator.provider_env().items():
        monkeypatch.setenv(name, value)

    body = minimal_job(kind="job", metadata={"name": "train-abc123", "annotations": UNLISTED})
    answer = httpx.post(emulator.api_url("/training-jobs"), json=body, auth=emulator.auth(), timeout=10)
    orphan_id = answer.raise_for_status().json()["metadata"]["id"]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(export("train-abc123", [])))
    assert orphans.main(["--stack-export", str(path), "--terminate"]) == 3
    out = capsys.readouterr().out
    assert (
        f"{orphan_id}  train-abc123  (Exploding; the service refused to terminate it: it may still be running"
        in out
    )
    assert URN in out
    assert orphans.main(["--stack-export", str(path), "--terminate", "--json"]) == 3
    report = json.loads(capsys.readouterr().out)
    assert report["terminated"] == [] and report["not_terminated"] == [orphan_id]
    assert operations(emulator).get("terminate") == 2
