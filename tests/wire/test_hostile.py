"""Item 5: hostile or broken answers reach the provider as clear errors, never as crashes or bad state.

The provider's read/create/delete/update are driven against tests/httpserver.py (a real HTTP server on
loopback answering what each test scripts); the CLI half (refresh against a garbage server keeps the state)
is in tests/cli/test_hostile_cli.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pulumi_modelarts.frontends.dynamic import TrainingJobProvider
from pulumi_modelarts.wire.errors import InvalidResponseError, ModelArtsError

from ..httpserver import Reply, ScriptedServer, json_reply, serving_the_provider
from ..support import minimal_job

PROJECT = "0123456789abcdef0123456789abcdef"
SECRET = "hostile-secret-key-VALUE"
JOB_ID = "11111111-2222-3333-4444-555555555555"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedServer]:
    with serving_the_provider(monkeypatch, access_key="HOSTILEAK", secret_key=SECRET, project=PROJECT) as srv:
        yield srv


def job(job_id: str = JOB_ID, name: str = "job-abc123", phase: str = "Running") -> dict[str, Any]:
    return minimal_job(
        kind="job",
        metadata={"id": job_id, "name": name, "create_time": 1_700_000_000_000},
        status={"phase": phase, "secondary_phase": phase},
    )


def inputs(**overrides: Any) -> dict[str, Any]:
    return minimal_job(**{"kind": "job", "metadata": {"name": "job-abc123"}, "wait_for": "none", **overrides})


def test_provider_rides_out_a_long_run_of_throttling(server: ScriptedServer) -> None:
    # Seven 429s in a row, then an answer: more than the client's default five attempts. A deployment of
    # many jobs against a throttling service hit this regularly before the provider raised its budget.
    server.queue(*[json_reply({"error_code": "APIG.0308", "error_msg": "throttled"}, 429)] * 7)
    server.queue(json_reply(job()))
    server.queue(json_reply({"tags": []}))  # a lookup by id reads the job's tags too
    result = TrainingJobProvider().read(JOB_ID, {})
    assert result.id == JOB_ID
    assert len(server.requests) == 9


def test_authentication_failure_is_not_retried(server: ScriptedServer) -> None:
    server.queue(json_reply({"error_code": "APIG.0301", "error_msg": "Incorrect IAM authentication"}, 401))
    server.queue(json_reply(job()))
    with pytest.raises(ModelArtsError, match=r"APIG\.0301") as caught:
        TrainingJobProvider().read(JOB_ID, {})
    assert len(server.requests) == 1
    assert SECRET not in str(caught.value)


# --------------------------------------------------------------------------------------------------------
# Broken answers: each is a clear error (naming the operation and what was wrong), never a crash.

HTML_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"

BROKEN_READS = {
    "invalid-json": (Reply(200, '{"kind": "job", "metadata": {"id": '), "not JSON"),
    "html-200": (Reply(200, HTML_PAGE, {"Content-Type": "text/html"}), "not JSON"),
    "html-404-gateway": (Reply(404, HTML_PAGE, {"Content-Type": "text/html"}), "not a ModelArts error body"),
    "json-array": (json_reply([1, 2, 3]), "not a JSON object"),
    "empty-200": (Reply(200, ""), "empty"),
    "wrong-types": (json_reply({**job(), "metadata": "not an object"}), "expected shape"),
    "status-wrong-type": (json_reply({**job(), "status": {"phase": ["Running"]}}), "expected shape"),
    "error-body-200": (
        json_reply({"error_code": "ModelArts.0001", "error_msg": "internal"}),
        "success status came with an error body",
    ),
    "another-jobs-id": (json_reply(job(job_id="99999999-0000-0000-0000-000000000000")), "99999999"),
}


@pytest.mark.parametrize("case", list(BROKEN_READS))
def test_read_of_a_broken_answer_fails_clearly(server: ScriptedServer, case: str) -> None:
    reply, words = BROKEN_READS[case]
    server.handler = lambda _request: reply  # every attempt gets the same broken answer
    with pytest.raises(ModelArtsError) as caught:
        TrainingJobProvider().read(JOB_ID, {"declared_inputs": inputs()})
    message = str(caught.value)
    assert words in message
    assert JOB_ID in message  # names the operation's job
    assert SECRET not in message and "HOSTILEAK" not in message
    assert "Traceback" not in message


def test_read_with_fields_missing_is_tolerated(server: ScriptedServer) -> None:
    # Responses are tolerant: a job with only its id and phase is still a job.
    server.queue(json_reply({"metadata": {"id": JOB_ID}, "status": {"phase": "Running"}}))
    server.queue(json_reply({}))  # and a tag answer without its list: no tags
    result = TrainingJobProvider().read(JOB_ID, {})
    assert result.id == JOB_ID and (result.outs or {})["phase"] == "Running"
    assert (result.outs or {})["tags"] == {}


def test_create_answered_without_an_id_fails_and_stores_nothing(server: ScriptedServer) -> None:
    body = job()
    del body["metadata"]["id"]
    server.queue(json_reply(body, 201))
    with pytest.raises(InvalidResponseError, match=r"no metadata\.id"):
        TrainingJobProvider().create(inputs())
    assert [r.method for r in server.requests] == ["POST"]


@pytest.mark.parametrize("case", ["html-200", "error-body-200", "invalid-json"])
def test_create_with_a_broken_answer_fails_without_posting_again(server: ScriptedServer, case: str) -> None:
    # The create may have been applied; posting again blindly could make a second job.
    reply, words = BROKEN_READS[case]
    server.handler = lambda _request: reply
    with pytest.raises(ModelArtsError, match=words):
        TrainingJobProvider().create(inputs())
    # The one other POST is the search for the job by name (the lost-create recovery), never a second create.
    creates = [r for r in server.requests if r.method == "POST" and r.path.endswith("/training-jobs")]
    assert len(creates) == 1
    assert [r.path.rsplit("/", 1)[-1] for r in server.requests] == ["training-jobs", "training-job-searches"]


def test_delete_of_a_job_answered_with_garbage_fails_clearly(server: ScriptedServer) -> None:
    server.handler = lambda _request: Reply(200, HTML_PAGE, {"Content-Type": "text/html"})
    with pytest.raises(InvalidResponseError, match="not JSON"):
        TrainingJobProvider().delete(JOB_ID, {})


def test_delete_of_a_job_that_vanishes_between_terminate_and_the_second_look(server: ScriptedServer) -> None:
    # The job finished (terminate refused) and was then removed before delete looked again: it is gone.
    server.queue(
        json_reply(job(phase="Running")),
        json_reply({"error_code": "ModelArts.2762", "error_msg": "the job is not running"}, status=400),
        json_reply({"error_code": "ModelArts.2775", "error_msg": "job not found"}, status=400),
    )
    TrainingJobProvider().delete(JOB_ID, {})
    assert [r.method for r in server.requests] == ["GET", "POST", "GET"]
