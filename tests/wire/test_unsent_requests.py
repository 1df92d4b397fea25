"""A request that could not be built was never sent: refused at once, never retried, never reported as "no
answer" or "may or may not have been applied"; and a create answered 401 APIG.0307 until no attempt is left
is reported as that answer, not as "no answer from ModelArts".

Observed before: a header value holding a line break made 83-93 s of retries of a create, ending "the create
request may or may not have been applied" although nothing was sent; one holding "☃" escaped as a bare
UnicodeEncodeError. Against tests/httpserver.py on a fake clock.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import httpx
import pytest

from pulumi_modelarts.wire.api_errors import AuthenticationError
from pulumi_modelarts.wire.auth import AkSkAuth, TokenAuth
from pulumi_modelarts.wire.errors import UnusableValueError

from ..client_support import create_job
from ..httpserver import Recorded, Reply, ScriptedServer, json_reply
from ..support import FakeTime
from .scripted_service import JOBS, SEARCH, create_request, error_body

SECRET = "SkUnsentSecretValue0123"


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def client_defaults(fake_time: FakeTime) -> dict[str, Any]:
    """make_client's (tests/wire/conftest.py): four attempts on a fake clock."""
    return {"max_attempts": 4, "sleep": fake_time.sleep, "clock": fake_time.clock, "rng": lambda: 0.5}


UNSENDABLE = {
    "line break in the security token": AkSkAuth("AKUNSENT", SECRET, security_token="tok\r\nX-Evil: 1"),
    "snowman in the security token": AkSkAuth("AKUNSENT", SECRET, security_token="tok☃en"),
    "line break in the IAM token": TokenAuth("tok\r\nX-Evil: 1"),
    "snowman in the access key": AkSkAuth("AK☃", SECRET),
}


@pytest.mark.parametrize("case", list(UNSENDABLE))
def test_a_request_that_cannot_be_built_is_refused_at_once(
    server: ScriptedServer, make_client: Any, fake_time: FakeTime, case: str
) -> None:
    client = make_client(auth=UNSENDABLE[case])
    for call in (lambda: client.get_job("j-1"), lambda: create_job(client, create_request("job-a"))):
        with pytest.raises(UnusableValueError) as caught:
            call()
        text = str(caught.value)
        assert "before anything was sent" in text and "cannot carry" in text
        assert "may or may not" not in text and "no answer" not in text
        assert "X-Evil" not in text and "☃" not in text and SECRET not in text
    assert server.requests == [] and fake_time.sleeps == []  # nothing sent, nothing retried


class AlwaysRenewing(httpx.Auth):
    """Temporary keys the gateway keeps refusing as expired, though renewed each time (``RenewableAuth``)."""

    def __init__(self) -> None:
        self.renewals = 0

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        yield request

    def renew(self) -> bool:
        self.renewals += 1
        return True


def test_a_create_refused_as_expired_to_the_last_attempt_reports_that_answer(
    server: ScriptedServer, make_client: Any
) -> None:
    def answer(request: Recorded) -> Reply:
        if request.path == SEARCH:
            return json_reply({"total": 0, "count": 0, "items": []})
        return json_reply(error_body("APIG.0307", "The token must be updated."), status=401)

    server.handler = answer
    auth = AlwaysRenewing()
    with pytest.raises(AuthenticationError) as caught:
        create_job(make_client(auth=auth), create_request("job-a"))
    text = str(caught.value)
    assert "APIG.0307" in text and "HTTP 401" in text and "create training job 'job-a'" in text
    assert "no answer" not in text and "may or may not" not in text
    assert [r.path for r in server.requests].count(JOBS) == 4 == auth.renewals  # each attempt renewed once
