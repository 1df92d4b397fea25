"""ModelArtsAPI against a real scripted HTTP server on 127.0.0.1 (no mocks of httpx)."""

from __future__ import annotations

import json
import pickle
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from pulumi_modelarts.wire.api import ModelArtsAPI
from pulumi_modelarts.wire.api_errors import (
    MAX_SERVICE_PAUSE,
    APIError,
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    ServerError,
    ThrottledError,
)
from pulumi_modelarts.wire.auth import AkSkAuth, TokenAuth, parse_authorization
from pulumi_modelarts.wire.errors import InvalidResponseError, TransportError, UnusableValueError
from pulumi_modelarts.wire.models import SearchFilter, SearchRequest, TrainingJob
from pulumi_modelarts.wire.transport import Transport

from ..client_support import create_job
from ..httpserver import Recorded, Reply, ScriptedServer, json_reply, self_signed_certificate
from ..support import FakeTime
from .scripted_service import (
    JOBS,
    PROJECT,
    SEARCH,
    JobStore,
    create_request,
    error_body,
    job,
    posts,
    searches,
)

AK = "AKEXAMPLE0123456789"
SK = "SkExampleSecretValue0123456789abcdef"
TOKEN = "SecurityTokenExampleValue-0123456789"


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def logs() -> list[str]:
    return []


@pytest.fixture
def client_defaults(fake_time: FakeTime, logs: list[str]) -> dict[str, Any]:
    """make_client's (tests/wire/conftest.py): temporary keys, four attempts on a fake clock, a kept log."""
    return {
        "auth": AkSkAuth(AK, SK, security_token=TOKEN, project_id=PROJECT),
        "secrets": (AK, SK, TOKEN),
        "max_attempts": 4,
        "sleep": fake_time.sleep,
        "clock": fake_time.clock,
        "log": logs.append,
        "rng": lambda: 0.5,
    }


def assert_no_secrets(*texts: str) -> None:
    for text in texts:
        for secret in (SK, TOKEN, AK, "Signature="):
            assert secret not in text, f"{secret!r} leaked into {text!r}"


# ---------------------------------------------------------------- happy paths and wire shapes


def test_get_job_is_signed_and_parsed_tolerantly(server: ScriptedServer, make_client: Any) -> None:
    server.queue(json_reply(job("j-1"), X_Request_Id="req-1"))
    found = make_client().get_job("j-1")
    assert found.metadata.id == "j-1"
    assert found.status.phase == "Running"
    (sent,) = server.requests
    assert (sent.method, sent.path, sent.body) == ("GET", f"{JOBS}/j-1", b"")
    parts = parse_authorization(sent.headers["authorization"])
    assert parts is not None and parts.access_key == AK
    assert {"host", "x-sdk-date", "x-project-id", "x-security-token"} <= set(parts.signed_headers)
    assert sent.headers["x-project-id"] == PROJECT
    assert "content-type" not in sent.headers


def test_ids_are_encoded_and_dot_segments_refused(server: ScriptedServer, make_client: Any) -> None:
    client = make_client()
    server.queue(json_reply(job("a/b?c")))
    client.get_job("a/b?c")
    assert server.requests[-1].path == f"{JOBS}/a%2Fb%3Fc"
    for bad in ("", " ", ".", ".."):
        with pytest.raises(ValueError):
            client.get_job(bad)


def test_create_sends_the_wire_body(server: ScriptedServer, make_client: Any) -> None:
    server.queue(json_reply(job("new-1"), status=201))
    created = create_job(make_client(), create_request())
    assert created.metadata.id == "new-1"
    (sent,) = server.requests
    assert (sent.method, sent.path) == ("POST", JOBS)
    assert sent.headers["content-type"].startswith("application/json")
    assert sent.json() == {
        "kind": "job",
        "metadata": {"name": "job-a", "description": "训练 ü"},
        "algorithm": {"id": "algo", "environments": {"A": "1"}},
        "spec": {"resource": {"flavor_id": "f", "node_count": 1}},
    }


def test_terminate_update_and_delete(server: ScriptedServer, make_client: Any) -> None:
    client = make_client()
    server.queue(
        json_reply(job("j-1", phase="Terminating"), status=202),
        Reply(status=200, body=None),
        Reply(status=204),
    )
    assert client.terminate_job("j-1").status.phase == "Terminating"
    client.update_description("j-1", "new words")
    client.delete_job("j-1")
    terminate, update, delete = server.requests
    assert (terminate.method, terminate.path, terminate.json()) == (
        "POST",
        f"{JOBS}/j-1/actions",
        {"action_type": "terminate"},
    )
    assert (update.method, update.path, update.json()) == ("PUT", f"{JOBS}/j-1", {"description": "new words"})
    assert (delete.method, delete.path, delete.body) == ("DELETE", f"{JOBS}/j-1", b"")


def test_token_auth_sends_the_token(server: ScriptedServer, make_client: Any) -> None:
    server.queue(json_reply(job("j-1")))
    make_client(auth=TokenAuth(TOKEN, project_id=PROJECT)).get_job("j-1")
    (sent,) = server.requests
    assert sent.headers["x-auth-token"] == TOKEN
    assert "authorization" not in sent.headers


def test_context_manager_closes_the_pool(server: ScriptedServer) -> None:
    with ModelArtsAPI(Transport(endpoint=server.url, project_id=PROJECT, auth=AkSkAuth(AK, SK))) as client:
        server.queue(json_reply(job("j-1")))
        client.get_job("j-1")
    with pytest.raises(RuntimeError):
        client.get_job("j-1")


# ---------------------------------------------------------------- error kinds


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (404, error_body("ModelArts.0000", "no such thing"), NotFoundError),
        (400, error_body("ModelArts.2775", "Training job not found."), NotFoundError),
        (
            400,
            error_body("ModelArts.2755", "algorithm not found.", "Check the algorithm id."),
            BadRequestError,
        ),
        (404, error_body("APIG.0101", "The API does not exist or has not been published."), BadRequestError),
        (409, error_body("ModelArts.9999", "conflict"), BadRequestError),
        (401, error_body("APIG.0301", "Incorrect IAM authentication information."), AuthenticationError),
        (403, error_body("ModelArts.0203", "Forbidden."), AuthenticationError),
    ],
)
def test_error_kinds(
    server: ScriptedServer, make_client: Any, status: int, body: dict[str, str], kind: type[APIError]
) -> None:
    server.queue(json_reply(body, status=status, X_Request_Id="rid-42"))
    with pytest.raises(kind) as caught:
        make_client().get_job("j-1")
    error = caught.value
    assert type(error) is kind
    assert (error.status_code, error.error_code, error.error_msg) == (
        status,
        body["error_code"],
        body["error_msg"],
    )
    assert error.request_id == "rid-42"
    text = str(error)
    for piece in (str(status), body["error_code"], body["error_msg"], "rid-42", "get training job 'j-1'"):
        assert piece in text
    if "error_solution" in body:
        assert body["error_solution"] in text
    assert len(server.requests) == 1  # none of these is retried
    assert_no_secrets(text, repr(error))


def test_error_text_has_one_full_stop_before_the_suggested_fix() -> None:
    ended = APIError(400, "ModelArts.2755", "algorithm does not exist.", "Check the algorithm id.")
    assert "algorithm does not exist. Suggested fix: Check the algorithm id." in str(ended)
    bare = APIError(400, "ModelArts.2755", "algorithm does not exist", "Check the algorithm id.")
    assert "algorithm does not exist. Suggested fix: Check the algorithm id." in str(bare)


def test_authentication_errors_are_never_retried(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime
) -> None:
    # APIG.0301 can come with other statuses; the code alone must stop retries.
    server.queue(json_reply(error_body("APIG.0301", "signature expired"), status=400))
    with pytest.raises(AuthenticationError):
        create_job(make_client(), create_request())
    assert len(server.requests) == 1
    assert fake_time.sleeps == []


def test_request_id_from_the_body_when_the_header_is_missing(
    server: ScriptedServer, make_client: Any
) -> None:
    server.queue(json_reply({**error_body("APIG.0308", "slow down"), "request_id": "body-rid"}, status=429))
    with pytest.raises(ThrottledError) as caught:
        make_client(max_attempts=1).get_job("j-1")
    assert caught.value.request_id == "body-rid"


# ---------------------------------------------------------------- retries


def test_throttling_is_retried_honouring_retry_after(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime, logs: list[str]
) -> None:
    server.queue(
        json_reply(error_body("APIG.0308", "throttled"), status=429, Retry_After="7"),
        json_reply(job("j-1")),
    )
    assert make_client().get_job("j-1").metadata.id == "j-1"
    assert len(server.requests) == 2
    assert fake_time.sleeps == [7.0]
    assert len(logs) == 1 and "retrying in 7.0s" in logs[0] and "attempt 2 of 4" in logs[0]
    # Each attempt is signed afresh.
    assert all("authorization" in r.headers for r in server.requests)


def test_a_call_refused_for_the_accounts_rate_retries_after_the_pause_not_a_growing_back_off(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime
) -> None:
    """The gateway's named pause holds every call of the account; the refused call waits it out like the
    others and then takes its turn at the pace, instead of falling behind them by a back-off of its own."""
    refused = json_reply(error_body("APIG.0308", "throttled"), status=429, Retry_After="1")
    server.queue(refused, refused, refused, json_reply(job("j-1")))
    client = make_client(base_delay=4.0, max_delay=30.0)  # its own back-off would be 2, 4 and 8 s (rng 0.5)
    assert client.get_job("j-1").metadata.id == "j-1"
    assert len(server.requests) == 4
    assert fake_time.sleeps == [1.0, 1.0, 1.0]


def test_server_errors_are_retried_with_growing_jittered_backoff(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime
) -> None:
    server.queue(
        json_reply(error_body("ModelArts.0001", "internal"), status=500),
        Reply(status=503, body="<html><body>Service Unavailable</body></html>"),
        json_reply(job("j-1")),
    )
    client = make_client(base_delay=1.0, max_delay=30.0)
    assert client.get_job("j-1").metadata.id == "j-1"
    assert len(server.requests) == 3
    # rng() is 0.5: half of 1 s, then half of 2 s.
    assert fake_time.sleeps == [0.5, 1.0]


def test_retries_stop_at_max_attempts(server: ScriptedServer, make_client: Any) -> None:
    server.handler = lambda _: json_reply(error_body("ModelArts.0001", "boom"), status=502)
    with pytest.raises(ServerError) as caught:
        make_client(max_attempts=3).get_job("j-1")
    assert len(server.requests) == 3
    assert caught.value.status_code == 502


def test_retries_stop_at_the_time_budget(server: ScriptedServer, make_client: Any) -> None:
    server.handler = lambda _: json_reply(error_body("APIG.0308", "later"), status=429, Retry_After="100")
    with pytest.raises(ThrottledError) as caught:
        make_client(max_retry_seconds=30.0).get_job("j-1")
    assert len(server.requests) == 1
    assert caught.value.retry_after == MAX_SERVICE_PAUSE == 60.0  # the named 100 s, cut to the most honoured


def test_dropped_connections_exhaust_into_a_transport_error(
    server: ScriptedServer, make_client: Any, logs: list[str]
) -> None:
    server.handler = lambda _: Reply(drop=True)
    with pytest.raises(TransportError) as caught:
        make_client(max_attempts=3).get_job("j-1")
    assert len(server.requests) == 3
    assert caught.value.attempts == 3
    assert "get training job 'j-1'" in str(caught.value) and "after 3 attempts" in str(caught.value)
    assert len(logs) == 2
    assert_no_secrets(str(caught.value), *logs)


def test_connection_refused_is_a_transport_error(fake_time: FakeTime) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = ModelArtsAPI(
        Transport(
            endpoint=f"http://127.0.0.1:{port}",
            project_id=PROJECT,
            auth=AkSkAuth(AK, SK),
            max_attempts=2,
            sleep=fake_time.sleep,
            clock=fake_time.clock,
        )
    )
    with client, pytest.raises(TransportError, match="could not connect"):
        client.get_job("j-1")
    assert len(fake_time.sleeps) == 1


def test_a_refused_connection_is_retried_once_and_names_the_endpoint(fake_time: FakeTime) -> None:
    # Nothing listening is not a flaky service: ten attempts with growing pauses would take minutes.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    logs: list[str] = []
    client = ModelArtsAPI(
        Transport(
            endpoint=f"http://127.0.0.1:{port}",
            project_id=PROJECT,
            auth=AkSkAuth(AK, SK),
            max_attempts=10,
            sleep=fake_time.sleep,
            clock=fake_time.clock,
            log=logs.append,
        )
    )
    with client, pytest.raises(TransportError) as caught:
        client.get_job("j-1")
    assert caught.value.attempts == 2
    assert len(fake_time.sleeps) == 1 and fake_time.sleeps[0] <= 1.0
    assert str(caught.value) == (
        f"get training job 'j-1' failed after 2 attempts: no answer from ModelArts at "
        f"http://127.0.0.1:{port} (could not connect: connection refused)"
    )
    assert logs and "attempt 2 of 2" in logs[0]
    assert_no_secrets(str(caught.value), *logs)
    assert pickle.loads(pickle.dumps(caught.value)).args == caught.value.args


def test_a_host_name_that_does_not_resolve_is_retried_once(fake_time: FakeTime) -> None:
    def unresolvable(request: httpx.Request) -> httpx.Response:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except socket.gaierror as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc

    client = ModelArtsAPI(
        Transport(
            endpoint="https://modelarts.nowhere-1.example.com",
            project_id=PROJECT,
            auth=AkSkAuth(AK, SK),
            max_attempts=10,
            transport=httpx.MockTransport(unresolvable),
            sleep=fake_time.sleep,
            clock=fake_time.clock,
        )
    )
    with client, pytest.raises(TransportError) as caught:
        client.get_job("j-1")
    assert caught.value.attempts == 2
    assert "no answer from ModelArts at https://modelarts.nowhere-1.example.com" in str(caught.value)
    assert "the host name could not be resolved" in str(caught.value)


def test_other_connect_failures_keep_the_full_retry_budget(fake_time: FakeTime) -> None:
    def reset(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection reset during the handshake", request=request)

    client = ModelArtsAPI(
        Transport(
            endpoint="https://modelarts.cn-north-4.myhuaweicloud.com",
            project_id=PROJECT,
            auth=AkSkAuth(AK, SK),
            max_attempts=4,
            transport=httpx.MockTransport(reset),
            sleep=fake_time.sleep,
            clock=fake_time.clock,
        )
    )
    with client, pytest.raises(TransportError) as caught:
        client.get_job("j-1")
    assert caught.value.attempts == 4


def test_read_timeouts_are_retried_then_reported(server: ScriptedServer, make_client: Any) -> None:
    server.handler = lambda _: Reply(delay=0.6, body=job("j-1"))
    started = time.monotonic()
    with pytest.raises(TransportError, match="timed out"):
        make_client(timeout=0.2, max_attempts=2).get_job("j-1")
    assert time.monotonic() - started < 3.0
    assert len(server.requests) == 2


# ---------------------------------------------------------------- lost-create recovery


def test_lost_create_answer_finds_the_job_and_does_not_post_twice(
    server: ScriptedServer, make_client: Any, logs: list[str]
) -> None:
    store = JobStore()
    # An older job sharing a prefix and an old job with the same name must not be taken for ours.
    store.jobs.append(job("old-same-name", name="job-a", create_time=int((time.time() - 86400) * 1000)))
    store.jobs.append(job("other", name="job-a-2"))
    store.create_reply = lambda created: Reply(drop=True)  # commits, then hangs up
    server.handler = store
    created = create_job(make_client(), create_request("job-a"))
    assert created.metadata.id == "id-3"
    assert len(posts(server)) == 1
    assert len(searches(server)) == 1
    search = searches(server)[0].json()
    assert search["filters"] == [{"key": "name", "operator": "like", "value": ["job-a"]}]
    assert any("not creating it again" in line for line in logs)


@pytest.mark.parametrize(
    ("age_seconds", "phase"),
    [
        (86400, "Running"),  # an old job of that name, created long before this call
        # A replaced job with a pinned name: created a minute ago, and terminated first by the replacement.
        (60, "Terminating"),
        (60, "Terminated"),
    ],
)
def test_lost_create_that_never_happened_is_posted_again(
    server: ScriptedServer, make_client: Any, age_seconds: int, phase: str
) -> None:
    store = JobStore()
    earlier = int((time.time() - age_seconds) * 1000)
    store.jobs.append(job("old-same-name", name="job-a", create_time=earlier, phase=phase))
    answers = iter([Reply(drop=True)])
    store.commit = False
    store.create_reply = lambda created: next(answers, None) or json_reply(created, status=201)

    def handler(request: Recorded) -> Reply:
        reply = store(request)
        if request.path == JOBS:
            store.commit = True
        return reply

    server.handler = handler
    created = create_job(make_client(), create_request("job-a"))
    assert created.metadata.id != "old-same-name"
    assert [r.path for r in server.requests] == [JOBS, SEARCH, JOBS]


def test_gateway_timeout_after_commit_is_recovered(server: ScriptedServer, make_client: Any) -> None:
    store = JobStore()
    store.create_reply = lambda created: json_reply(error_body("APIG.0201", "Backend timeout."), status=504)
    server.handler = store
    created = create_job(make_client(), create_request("job-a"))
    assert created.metadata.id == "id-1"
    assert len(posts(server)) == 1


def test_throttled_create_is_retried_without_searching(server: ScriptedServer, make_client: Any) -> None:
    store = JobStore()
    server.queue(json_reply(error_body("APIG.0308", "throttled"), status=429))
    server.handler = store
    assert create_job(make_client(), create_request("job-a")).metadata.id == "id-1"
    assert [r.path for r in server.requests] == [JOBS, JOBS]


def test_lost_create_checked_once_more_before_giving_up(server: ScriptedServer, make_client: Any) -> None:
    store = JobStore()
    store.commit = False
    store.create_reply = lambda created: Reply(drop=True)
    server.handler = store
    with pytest.raises(TransportError):
        create_job(make_client(max_attempts=2), create_request("job-a"))
    assert [r.path for r in server.requests] == [JOBS, SEARCH, JOBS, SEARCH]


def test_create_answer_without_an_id_is_invalid(server: ScriptedServer, make_client: Any) -> None:
    server.queue(json_reply({"kind": "job", "metadata": {"name": "job-a"}}, status=201))
    with pytest.raises(InvalidResponseError, match=r"no metadata\.id"):
        create_job(make_client(), create_request("job-a"))
    assert len(server.requests) == 1


# ---------------------------------------------------------------- pagination


def test_iter_jobs_pages_by_index_until_total(server: ScriptedServer, make_client: Any) -> None:
    store = JobStore()
    base = int(time.time() * 1000)
    store.jobs = [job(f"j-{i:03}", name=f"run-{i}", create_time=base - i) for i in range(120)]
    server.handler = store
    flt = SearchFilter(key="name", operator="like", value=["run-"])
    listed = list(make_client().iter_jobs([flt]))
    assert [j.metadata.id for j in listed] == [f"j-{i:03}" for i in range(120)]
    bodies = [r.json() for r in searches(server)]
    assert [b["offset"] for b in bodies] == [0, 1, 2]
    assert all(b["limit"] == 50 for b in bodies)
    assert bodies[0]["filters"] == [{"key": "name", "operator": "like", "value": ["run-"]}]


def test_iter_jobs_stops_on_a_short_page_even_if_total_counts_everything(
    server: ScriptedServer, make_client: Any
) -> None:
    server.queue(json_reply({"total": 5000, "count": 3, "items": [job("a"), job("b"), job("c")]}))
    assert [j.metadata.id for j in make_client().iter_jobs(page_size=10)] == ["a", "b", "c"]
    assert len(server.requests) == 1


def test_iter_jobs_stops_once_total_is_seen(server: ScriptedServer, make_client: Any) -> None:
    counter = iter(range(10**6))
    server.handler = lambda _: json_reply(
        {"total": 100, "items": [job(f"n-{next(counter)}") for _ in range(50)]}
    )
    assert len(list(make_client().iter_jobs())) == 100
    assert len(server.requests) == 2


def test_iter_jobs_refuses_a_total_that_keeps_growing(server: ScriptedServer, make_client: Any) -> None:
    counter = iter(range(10**6))

    def endless(_: Recorded) -> Reply:
        items = [job(f"n-{next(counter)}") for _ in range(50)]
        return json_reply({"total": 100 + 50 * len(server.requests), "items": items})

    server.handler = endless
    with pytest.raises(InvalidResponseError, match="beyond page"):
        list(make_client().iter_jobs())
    # Pages asked for (a request retried under load asks for its page again): the first total, plus slack.
    offsets = {json.loads(r.body)["offset"] for r in server.requests}
    assert offsets == set(range(150 // 50 + 3))


def test_iter_jobs_without_total_is_bounded(
    server: ScriptedServer, make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pulumi_modelarts.wire.api.MAX_PAGES", 6)
    counter = iter(range(10**6))
    server.handler = lambda _: json_reply({"items": [job(f"n-{next(counter)}") for _ in range(50)]})
    with pytest.raises(InvalidResponseError, match="beyond page"):
        list(make_client().iter_jobs())
    assert len(server.requests) == 6


def test_iter_jobs_refuses_a_server_that_ignores_offset(server: ScriptedServer, make_client: Any) -> None:
    page = [job(f"same-{i}") for i in range(50)]
    server.handler = lambda _: json_reply({"total": 1000, "items": page})
    with pytest.raises(InvalidResponseError, match="repeated"):
        list(make_client().iter_jobs())
    assert len(server.requests) == 2


def test_search_jobs_returns_the_raw_page(server: ScriptedServer, make_client: Any) -> None:
    server.queue(json_reply({"total": 7, "count": 1, "limit": 1, "offset": 0, "items": [job("x")], "new": 1}))
    answer = make_client().search_jobs(SearchRequest(offset=0, limit=1))
    assert (answer.total, answer.count, [j.metadata.id for j in answer.items]) == (7, 1, ["x"])
    assert server.requests[0].json() == {"offset": 0, "limit": 1}


# ---------------------------------------------------------------- hostile and broken answers


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(status=200, body="<html><h1>Welcome to nginx</h1></html>"), "not JSON"),
        (Reply(status=200, body="{truncated"), "not JSON"),
        (Reply(status=200, body=""), "empty"),
        (json_reply(["a", "list"]), "not a JSON object"),
        (json_reply(error_body("ModelArts.0001", "oops"), status=200), "error body"),
        (Reply(status=404, body="<html>Not Found</html>"), "not a ModelArts error body"),
        (Reply(status=302, headers={"Location": "https://elsewhere.example/"}), "redirect"),
        (json_reply({"metadata": "not an object"}), "expected shape"),
        # A body that does not match its Content-Encoding makes httpx raise DecodingError while reading.
        (
            Reply(status=200, body=b"not gzip at all", headers={"Content-Encoding": "gzip"}),
            "could not be decoded",
        ),
    ],
)
def test_unusable_answers(server: ScriptedServer, make_client: Any, reply: Reply, problem: str) -> None:
    server.queue(reply)
    with pytest.raises(InvalidResponseError) as caught:
        make_client().get_job("j-1")
    assert problem in str(caught.value)
    assert len(server.requests) == 1
    assert_no_secrets(str(caught.value))


def test_html_excerpt_is_short(server: ScriptedServer, make_client: Any) -> None:
    server.queue(Reply(status=200, body="<html>" + "x" * 10_000 + "</html>"))
    with pytest.raises(InvalidResponseError) as caught:
        make_client().get_job("j-1")
    assert caught.value.excerpt is not None and len(caught.value.excerpt) <= 200
    assert len(str(caught.value)) < 600


def test_html_gateway_errors_are_server_errors_after_retries(
    server: ScriptedServer, make_client: Any
) -> None:
    server.handler = lambda _: Reply(status=502, body="<html><title>502 Bad Gateway</title></html>")
    with pytest.raises(ServerError) as caught:
        make_client(max_attempts=2).get_job("j-1")
    assert "502 Bad Gateway" in str(caught.value)
    assert len(server.requests) == 2


def test_secrets_echoed_by_the_service_are_scrubbed(
    server: ScriptedServer, make_client: Any, logs: list[str]
) -> None:
    echo = f"bad request from ak {AK} with sk {SK} token {TOKEN}"
    server.queue(
        json_reply(error_body("ModelArts.0001", echo), status=500),
        json_reply(error_body("ModelArts.0002", echo, solution=f"rotate {SK}"), status=400),
    )
    client = make_client()
    with pytest.raises(BadRequestError) as caught:
        client.get_job("j-1")
    assert "***" in str(caught.value)
    assert_no_secrets(str(caught.value), repr(caught.value), repr(client), *logs)
    server.queue(Reply(status=200, body=f"<html>{SK} {TOKEN}</html>"))
    with pytest.raises(InvalidResponseError) as invalid:
        client.get_job("j-1")
    assert_no_secrets(str(invalid.value))


def test_client_refuses_to_be_pickled(make_client: Any) -> None:
    import pickle

    with pytest.raises(TypeError):
        pickle.dumps(make_client())


# ---------------------------------------------------------------- endpoints


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://example.com",
        "http://10.0.0.1:8080",
        "http://127.0.0.1.example.com",
        "http://evil.localhost:8080",  # a name any resolver or hosts file may point anywhere
        "http://localhost.evil.example.com",
        "ftp://127.0.0.1",
        "no-scheme",
    ],
)
def test_plain_http_only_for_loopback(endpoint: str) -> None:
    with pytest.raises(UnusableValueError):
        ModelArtsAPI(Transport(endpoint=endpoint, project_id=PROJECT, auth=AkSkAuth(AK, SK)))


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:9000",
        "http://127.8.9.10",
        "http://localhost:8080/",
        "http://[::1]:9000",
        "https://modelarts.cn-north-4.myhuaweicloud.com",
    ],
)
def test_accepted_endpoints(endpoint: str) -> None:
    with ModelArtsAPI(Transport(endpoint=endpoint, project_id=PROJECT, auth=AkSkAuth(AK, SK))) as client:
        assert client.transport.endpoint == endpoint.rstrip("/")
        assert_no_secrets(repr(client))


def test_https_verification_is_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A loopback HTTPS server with a self-signed certificate: refused before a request is sent...
    certificate = self_signed_certificate(tmp_path)
    with ScriptedServer(tls=certificate) as server:
        server.handler = lambda _r: json_reply(job("j-1"))

        def get() -> TrainingJob:
            client = ModelArtsAPI(
                Transport(endpoint=server.url, project_id=PROJECT, auth=AkSkAuth(AK, SK), max_attempts=1)
            )
            with client:
                return client.get_job("j-1")

        with pytest.raises(TransportError, match="could not connect"):
            get()
        assert server.requests == []
        # ...and accepted once that certificate is the trusted one: the refusal was the verification.
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate.cert))
        assert get().metadata.id == "j-1"
        assert len(server.requests) == 1


def test_error_messages_survive_pickling() -> None:
    import pickle

    error = ThrottledError(429, "APIG.0308", "slow", None, "rid", operation="get training job 'x'")
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error)
    assert json.dumps(str(again))


def test_lost_create_of_a_job_that_already_completed_is_still_found(
    server: ScriptedServer, make_client: Any
) -> None:
    # A short job can finish while the create is retried: finished is not a reason to post it again.
    store = JobStore()
    store.create_reply = lambda created: Reply(drop=True)

    def handler(request: Recorded) -> Reply:
        reply = store(request)
        for stored in store.jobs:
            stored["status"] = {"phase": "Completed", "secondary_phase": "Completed"}
        return reply

    server.handler = handler
    created = create_job(make_client(), create_request("job-a"))
    assert created.phase == "Completed"
    assert len(posts(server)) == 1
