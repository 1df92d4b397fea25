"""Answers the client cannot use become its own errors, naming the operation, the job and the HTTP status.

Bodies too deeply nested for the JSON parser (which raised RecursionError past the client), not JSON, of
the wrong types or not valid UTF-8, on success and error statuses alike; a create whose 201 cannot be read
looks for the job by name instead of failing or posting again. And a 403 is reported by what its code says.
"""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_modelarts.wire.api_errors import APIError, AuthenticationError, ForbiddenError, api_error_class
from pulumi_modelarts.wire.auth import AkSkAuth
from pulumi_modelarts.wire.errors import InvalidResponseError, ModelArtsError

from ..client_support import create_job
from ..httpserver import Recorded, Reply, ScriptedServer, json_reply
from .scripted_service import JOBS, PROJECT, SEARCH, JobStore, create_request, error_body, posts, searches

AK, SK = "AKUNUSABLE0123456789", "SkUnusableSecretValue0123456789"
JOB_ID = "11111111-2222-3333-4444-555555555555"
DEEP = "[" * 10000 + "]" * 10000


@pytest.fixture
def client_defaults() -> dict[str, Any]:
    """make_client's (tests/wire/conftest.py): three attempts, no pauses between them."""
    return {
        "auth": AkSkAuth(AK, SK),
        "secrets": (AK, SK),
        "max_attempts": 3,
        "sleep": lambda _s: None,
        "rng": lambda: 0.0,
    }


def valid_job_bytes(description: bytes = b"ok") -> bytes:
    return (
        b'{"kind": "job", "metadata": {"id": "' + JOB_ID.encode() + b'", "name": "job-a", "description": "'
        + description + b'"}, "status": {"phase": "Running"}}'
    )  # fmt: skip


UNUSABLE = {
    "too-deep": Reply(200, DEEP),
    "too-deep-object": Reply(200, '{"a":' * 5000 + "1" + "}" * 5000),
    "not-json": Reply(200, "<html>502</html>", {"Content-Type": "text/html"}),
    "wrong-types": json_reply({"metadata": {"id": JOB_ID, "name": ["not", "text"]}, "status": "Running"}),
    "invalid-utf-8": Reply(200, valid_job_bytes(b"caf\xe9 \xff"), {"Content-Type": "application/json"}),
}


@pytest.mark.parametrize("case", list(UNUSABLE))
def test_an_unusable_answer_to_a_read_is_an_invalid_response(
    server: ScriptedServer, make_client: Any, case: str
) -> None:
    server.handler = lambda _r: UNUSABLE[case]
    with pytest.raises(InvalidResponseError) as caught:
        make_client().get_job(JOB_ID)
    text = str(caught.value)
    assert f"get training job {JOB_ID!r}" in text and "(HTTP 200)" in text, text
    assert SK not in text and AK not in text
    assert len(server.requests) == 1  # an answer came: nothing to retry


def test_the_problem_is_named(server: ScriptedServer, make_client: Any) -> None:
    server.handler = lambda _r: UNUSABLE["too-deep"]
    with pytest.raises(InvalidResponseError, match="nested too deeply"):
        make_client().get_job(JOB_ID)
    server.handler = lambda _r: UNUSABLE["invalid-utf-8"]
    with pytest.raises(InvalidResponseError, match="not valid UTF-8"):
        make_client().get_job(JOB_ID)


@pytest.mark.parametrize("status", [400, 403, 404, 409, 500, 503])
@pytest.mark.parametrize("body", [DEEP, b'{"error_code": "ModelArts.0001", "error_msg": "caf\xe9"}'])
def test_an_unusable_error_body_is_still_the_clients_own_error(
    server: ScriptedServer, make_client: Any, status: int, body: str | bytes
) -> None:
    server.handler = lambda _r: Reply(status, body)
    with pytest.raises(ModelArtsError) as caught:
        make_client().get_job(JOB_ID)
    text = str(caught.value)
    assert f"get training job {JOB_ID!r}" in text and f"HTTP {status}" in text, text
    assert ("nested too deeply" if body == DEEP else "not valid UTF-8") in text  # the problem is named


def test_a_deep_answer_to_the_provider_is_its_error_not_a_recursion_error(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pulumi_modelarts.frontends.dynamic import TrainingJobProvider, set_config

    for name in ("HW_ACCESS_KEY", "HW_SECRET_KEY", "HW_PROJECT_ID", "HW_MODELARTS_ENDPOINT", "HW_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HW_MODELARTS_ENDPOINT", server.url)
    monkeypatch.setenv("HW_ACCESS_KEY", AK)
    monkeypatch.setenv("HW_SECRET_KEY", SK)
    monkeypatch.setenv("HW_PROJECT_ID", PROJECT)
    set_config({})
    server.handler = lambda _r: Reply(200, DEEP)
    with pytest.raises(InvalidResponseError, match=f"get training job {JOB_ID!r}"):
        TrainingJobProvider().read(JOB_ID, {})


# --------------------------------------------------------------------------------------------------------
# A create answered 201 with a body that cannot be read: the job was made; find it by name, never post again.


def unusable_create(store: JobStore, body: str | bytes) -> None:
    store.create_reply = lambda _created: Reply(201, body)


UNREADABLE_CREATES = [
    DEEP,
    "<html>created</html>",
    b'{"metadata": {"id": "\xff"}}',
    '{"metadata": "not an object"}',
]


@pytest.mark.parametrize("body", UNREADABLE_CREATES)
def test_a_create_answered_unreadably_adopts_the_job_it_made(
    server: ScriptedServer, make_client: Any, body: str | bytes
) -> None:
    store = JobStore()
    unusable_create(store, body)
    server.handler = store
    created = create_job(make_client(), create_request("job-a"))
    assert created.metadata.id == "id-1" and created.metadata.name == "job-a"
    assert len(posts(server)) == 1
    assert len(searches(server)) == 1


def test_a_create_answered_unreadably_whose_job_is_not_found_fails_without_posting_again(
    server: ScriptedServer, make_client: Any
) -> None:
    store = JobStore()
    store.commit = False  # the search does not list it (yet)
    unusable_create(store, DEEP)
    server.handler = store
    with pytest.raises(InvalidResponseError) as caught:
        create_job(make_client(), create_request("job-a"))
    text = str(caught.value)
    assert "create training job 'job-a'" in text and "(HTTP 201)" in text and "nested too deeply" in text
    assert "console" in text  # says what to do: the job may exist
    assert len(posts(server)) == 1


def test_a_create_answered_unreadably_whose_search_fails_too_names_both(
    server: ScriptedServer, make_client: Any
) -> None:
    def handler(request: Recorded) -> Reply:
        return Reply(201, DEEP) if request.path == JOBS else Reply(200, DEEP)

    server.handler = handler
    with pytest.raises(ModelArtsError) as caught:
        create_job(make_client(), create_request("job-a"))
    text = str(caught.value)
    assert "create training job 'job-a'" in text and "HTTP 201" in text and "search training jobs" in text
    assert [r.path for r in server.requests].count(JOBS) == 1
    assert SEARCH in [r.path for r in server.requests]


# --------------------------------------------------------------------------------------------------------
# 403: by what its code says.


@pytest.mark.parametrize("code", ["ModelArts.0001", "ModelArts.0105", "ModelArts.4203"])
def test_a_403_that_is_no_authentication_failure_is_a_permission_error(
    server: ScriptedServer, make_client: Any, code: str
) -> None:
    server.queue(json_reply(error_body(code, "no permission for this action", "Ask for it."), status=403))
    with pytest.raises(ForbiddenError) as caught:
        make_client().get_job(JOB_ID)
    text = str(caught.value)
    assert not isinstance(caught.value, AuthenticationError)
    assert "credentials were refused" not in text
    assert "permission" in text and code in text and "no permission for this action" in text
    assert "HTTP 403" in text and f"get training job {JOB_ID!r}" in text
    assert len(server.requests) == 1  # not retried


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [
        (403, "APIG.0302", AuthenticationError),
        (403, "APIG.0303", AuthenticationError),
        (403, "ModelArts.0203", AuthenticationError),  # the platform's "invalid token"
        (401, "ModelArts.0001", AuthenticationError),
        (403, "ModelArts.0001", ForbiddenError),
        (403, None, ForbiddenError),  # no code: HTTP 403 only says "forbidden"
    ],
)
def test_403_kinds(status: int, code: str | None, kind: type[APIError]) -> None:
    assert api_error_class(status, code) is kind


def test_a_codeless_403_says_forbidden_without_blaming_the_credentials(
    server: ScriptedServer, make_client: Any
) -> None:
    server.queue(Reply(403, "<html>Forbidden</html>", {"Content-Type": "text/html"}))
    with pytest.raises(ForbiddenError) as caught:
        make_client().get_job(JOB_ID)
    assert "HTTP 403" in str(caught.value) and "Forbidden" in str(caught.value)
    assert len(server.requests) == 1


def test_a_job_body_is_unchanged_by_the_checks(server: ScriptedServer, make_client: Any) -> None:
    # The control: an ordinary answer with non-ASCII text still reads.
    server.queue(Reply(200, valid_job_bytes("训练 ü".encode()), {"Content-Type": "application/json"}))
    read = make_client().get_job(JOB_ID)
    assert read.metadata.description == "训练 ü"
