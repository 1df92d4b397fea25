"""What a create that gives up on its job leaves behind, whatever cut its watch short (the service, a
credential source, a parser, a bug): the job seen stopped (read back in a final phase after its terminate),
or the job kept for the state (``JobMayStillRun``, with its outputs) under a message that says it may still
run, names it and says how to stop it. Never a job running outside the state under a message that says
otherwise."""

from __future__ import annotations

import re
from typing import Any

import pytest

from modelarts_emulator.testing import EmulatorProcess
from pulumi_modelarts.job import core
from pulumi_modelarts.job.errors import ProvisioningError
from pulumi_modelarts.job.waiting import giving_up as reports
from pulumi_modelarts.job.waiting.giving_up import JobMayStillRun
from pulumi_modelarts.wire.api import ModelArtsAPI

from ..httpserver import Recorded, Reply, ScriptedServer, json_reply
from ..support import ProgressLines
from .core_support import JOB_ID, inputs, live_phase, scripted

pytestmark = pytest.mark.usefixtures("fast_polls")

NOTHING_LEFT = "nothing is left running"
PENDING = {"emulator/stay-pending": "true"}


def job(phase: str) -> dict[str, Any]:
    return {"metadata": {"id": JOB_ID, "name": "core-job"}, "status": {"phase": phase}}


def job_id_in(text: str) -> str:
    found = re.search(r"\(id ([^)]+)\)", text)
    assert found is not None, text
    return found.group(1)


def says_it_may_still_run(text: str, job_id: str) -> None:
    """The error's own words for a job that may still run: named, how to stop it, kept in the state."""
    assert NOTHING_LEFT not in text and "no longer running" not in text, text
    assert "may still be running" in text, text
    assert f"stop training job core-job (id {job_id}) in the ModelArts console" in text, text
    assert f"/training-jobs/{job_id}/actions" in text, text
    assert "it is kept in the Pulumi state as a resource whose creation failed" in text, text


# ------------------------------------------------------------------------------ a terminate that fails


def test_a_terminate_failing_with_any_exception_keeps_the_job_and_says_how_to_stop_it(
    emulator: EmulatorProcess, client: ModelArtsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As with keys from instance metadata turning hostile mid-wait: the polls and the terminate both fail,
    # and with no error of this package (a parser's RecursionError, httpx refusing a header's "☃").
    def deep_answer(job_id: str) -> Any:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    def snowman_token(job_id: str) -> Any:
        "☃".encode("ascii")

    said = ProgressLines()
    monkeypatch.setattr(client, "get_job", deep_answer)
    monkeypatch.setattr(client, "terminate_job", snowman_token)
    with pytest.raises(ProvisioningError) as info:
        core.create(inputs(PENDING, wait_for="completed"), client, said)
    text = str(info.value)
    job_id = job_id_in(text)
    assert isinstance(info.value, JobMayStillRun), text
    assert "could not be watched any more (RecursionError: maximum recursion depth exceeded" in text
    assert "terminating it failed (UnicodeEncodeError: 'ascii' codec can't encode character" in text
    assert "the job could NOT be terminated and may still be running" in text
    says_it_may_still_run(text, job_id)
    # The state gets the job: its id, and the declared inputs a destroy and the next up work from.
    assert info.value.job_id == job_id
    outputs = info.value.outputs
    assert outputs is not None and outputs["metadata"]["id"] == job_id
    assert outputs["declared_inputs"]["metadata"]["name"] == "core-job"
    assert live_phase(emulator, job_id) in ("Creating", "Pending")  # left running, as the text says


def test_an_exception_text_in_the_message_is_scrubbed_of_credentials(
    emulator: EmulatorProcess, client: ModelArtsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    def echoing(job_id: str) -> Any:
        raise ValueError(f"refused header X-Security-Token for key {emulator.secret_key}")

    monkeypatch.setattr(client, "terminate_job", echoing)
    with pytest.raises(JobMayStillRun) as info:
        core.create(inputs(PENDING, wait_for="running", wait_timeout=0.3), client, ProgressLines())
    text = str(info.value)
    assert emulator.secret_key not in text
    assert "terminating it failed (ValueError: refused header X-Security-Token for key ***)" in text, text


def test_a_failure_after_the_wait_stops_the_job_and_reads_it_back_before_saying_so(
    emulator: EmulatorProcess, client: ModelArtsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wait succeeded, but the outputs for the state could not be built (a bug): the engine would never
    # learn the job's id, so it is stopped as any failed wait's job is.
    def broken_outputs(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("status")

    said = ProgressLines()
    monkeypatch.setattr(core, "job_outputs", broken_outputs)
    with pytest.raises(ProvisioningError) as info:
        core.create(inputs(PENDING, wait_for="pending"), client, said)
    text = str(info.value)
    assert not isinstance(info.value, JobMayStillRun), text
    assert "could not be watched any more (KeyError: 'status')" in text, text
    assert text.endswith("the job was terminated, so nothing is left running outside the Pulumi state."), text
    assert live_phase(emulator, job_id_in(text)) == "Terminated"  # read back so before it said so


# --------------------------------------------------------------------- terminated only once seen stopped


def scripted_terminate(server: ScriptedServer, phases_after: list[str], last: str) -> list[Recorded]:
    """The service for a job stuck in Exploding: the terminate answered 202 Terminating, then the job read
    in phases_after, one a read, then last for ever. The requests after the terminate are returned."""
    after: list[Recorded] = []

    def answer(request: Recorded) -> Reply:
        if request.path.endswith("/actions"):
            after.append(request)
            return json_reply(job("Terminating"), 202)
        if not after:
            return json_reply(job("Exploding"))
        after.append(request)
        return json_reply(job(phases_after.pop(0) if phases_after else last))

    server.queue(json_reply(job("Creating"), 201))
    server.handler = answer
    return after


def test_an_accepted_terminate_is_not_called_terminated_until_the_job_is_read_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(reports, "STOP_CONFIRM_SECONDS", 0.3, raising=False)
    with ScriptedServer() as server:
        after = scripted_terminate(server, [], last="Exploding")  # the service never shows it stopping
        with scripted(server) as http, pytest.raises(ProvisioningError) as info:
            core.create(inputs(wait_for="running", wait_timeout=0.2), http, ProgressLines())
    text = str(info.value)
    assert isinstance(info.value, JobMayStillRun), text
    assert [r.method for r in after][:2] == ["POST", "GET"]  # read back after the terminate
    assert "the job was terminated" not in text, text
    assert "terminate accepted (Terminating), but the job was not seen stopped" in text, text
    assert "it was still Exploding after " in text, text
    says_it_may_still_run(text, JOB_ID)
    assert info.value.outputs is not None and info.value.outputs["phase"] == "Exploding"


def test_an_accepted_terminate_is_called_terminated_once_the_job_is_read_in_a_final_phase() -> None:
    with ScriptedServer() as server:
        after = scripted_terminate(server, ["Terminating"], last="Terminated")
        said = ProgressLines()
        with scripted(server) as http, pytest.raises(ProvisioningError) as info:
            core.create(inputs(wait_for="running", wait_timeout=0.2), http, said)
    text = str(info.value)
    assert not isinstance(info.value, JobMayStillRun), text
    assert [r.method for r in after] == ["POST", "GET", "GET"], after
    assert "last status: phase Terminated" in text, text
    assert text.endswith("the job was terminated, so nothing is left running outside the Pulumi state."), text
    assert f"training job core-job (id {JOB_ID}): terminate accepted (Terminating)" in said.lines


def test_a_wait_ended_by_someone_elses_terminate_is_not_called_over_while_the_job_is_terminating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(reports, "STOP_CONFIRM_SECONDS", 0.3, raising=False)
    with ScriptedServer() as server:
        server.queue(json_reply(job("Creating"), 201))
        server.handler = lambda _request: json_reply(job("Terminating"))  # and it stays so
        with scripted(server) as http, pytest.raises(ProvisioningError) as info:
            core.create(inputs(wait_for="running"), http, ProgressLines())
        methods = [r.method for r in server.requests]
    text = str(info.value)
    assert isinstance(info.value, JobMayStillRun), text
    assert "was stopped (phase Terminating) before it reached running" in text, text
    assert "POST" not in methods[1:]  # someone else's terminate: none of ours
    assert "it was still Terminating after " in text, text
    assert "may still be running" in text and NOTHING_LEFT not in text, text
