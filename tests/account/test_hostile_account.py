"""What a hostile or broken IAM, metadata service or key source answers still becomes a clear error naming
the service (or the source) and the call, never a crash, a value or an endless fetch:

- one careful reader for every answer: bodies nested too deeply (the JSON parser's RecursionError before),
  too large (read whole before), not UTF-8;
- IAM's lists quoted in an error are cut, with a count of the rest (10,000 projects printed whole before);
- keys handed out already expired: asked for once more, then an error (each call fetched again before);
  whatever a source raises is an AccountError naming it; keys a header cannot carry are refused;
- the project id IAM answers meets the rule a configured one meets ("..", "", a header line break), refused
  at once, before anything is sent to ModelArts.

IAM and the metadata service are httpx.MockTransport answers, ModelArts a scripted server on loopback.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pulumi_modelarts.account import projects
from pulumi_modelarts.account.errors import AccountError
from pulumi_modelarts.account.iam import AgencyKeys, Iam, OidcKeys
from pulumi_modelarts.account.keys import RenewingKeys, TemporaryKeys, keys_from_answer
from pulumi_modelarts.account.metadata import MetadataKeys
from pulumi_modelarts.account.session import open_api
from pulumi_modelarts.account.settings import AssumeRole, Settings
from pulumi_modelarts.wire.auth import AkSkAuth

from ..httpserver import ScriptedServer, json_reply
from .account_support import AGENCY

pytestmark = pytest.mark.usefixtures("fresh_process_caches")

DEEP = "[" * 100_000 + "]" * 100_000
SECRET = "SkHostileAccountSecret0123"


def iam_answering(answer: Callable[[httpx.Request], httpx.Response]) -> Iam:
    return Iam("https://iam.r.example.com", transport=httpx.MockTransport(answer), sleep=lambda _s: None)


@contextlib.contextmanager
def iam_through(transport: httpx.BaseTransport) -> Iterator[None]:
    """Every Iam made meanwhile (by ``open_session``) sends through transport."""
    original = Iam.__init__

    def made(self: Iam, base: str, **kwargs: Any) -> None:
        original(self, base, **{**kwargs, "transport": transport})

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Iam, "__init__", made)
        yield


def credential(**fields: Any) -> dict[str, Any]:
    given = {
        "access": "TMPAK",
        "secret": "tmpsk",
        "securitytoken": "tmp-token",
        "expires_at": "2099-01-01T00:00:00Z",
    }
    return {"credential": {**given, **fields}}


# -- one careful reader --------------------------------------------------------------------------------------


def test_an_iam_answer_nested_too_deeply_is_named_not_a_recursion_error() -> None:
    iam = iam_answering(lambda _r: httpx.Response(200, text=DEEP))
    with pytest.raises(AccountError) as caught:
        projects.find_project(iam, httpx.Auth(), "r", identity="deep")
    text = str(caught.value)
    assert "looking up the project 'r' in IAM failed" in text
    assert "HTTP 200, a body that is nested too deeply to read (more than 32 levels)" in text


def test_an_iam_answer_too_large_is_refused_without_being_read_whole() -> None:
    sent: list[int] = []

    def megabytes() -> Iterator[bytes]:
        for _ in range(64):
            sent.append(1)
            yield b" " * (1024 * 1024)

    iam = iam_answering(lambda _r: httpx.Response(200, content=megabytes()))
    with pytest.raises(AccountError, match=r"IAM's answer is larger than 16777216 bytes"):
        projects.find_project(iam, httpx.Auth(), "r", identity="large")
    assert len(sent) <= 17  # it stopped reading at the bound


def test_an_agencys_keys_answered_unreadably_name_iam_and_the_call() -> None:
    role = AssumeRole(agency_name="a", domain_name="d")
    for body in (DEEP.encode(), b'{"credential": {"access": "\xff"}}'):
        iam = iam_answering(lambda _r, body=body: httpx.Response(201, content=body))
        with pytest.raises(AccountError) as caught:
            AgencyKeys(iam, httpx.Auth(), role).fetch()
        assert "assuming the agency 'a' failed: IAM answered HTTP 201, a body that is" in str(caught.value)


def test_an_id_token_file_too_large_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "id_token").write_bytes(b"x" * (2 * 1024 * 1024))
    sent: list[httpx.Request] = []
    iam = iam_answering(lambda r: sent.append(r) or httpx.Response(500))
    with pytest.raises(AccountError, match=r"the id token file .* is larger than 1048576 bytes"):
        OidcKeys(iam, "idp", str(tmp_path / "id_token")).fetch()
    assert sent == []


def test_metadata_keys_answered_unreadably_name_the_service() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="token-1" if request.method == "PUT" else DEEP)

    with pytest.raises(AccountError) as caught:
        MetadataKeys("http://127.0.0.1:9", transport=httpx.MockTransport(answer)).fetch()
    assert (
        "the instance metadata service at http://127.0.0.1:9 answered HTTP 200, a body that is nested"
        in str(caught.value)
    )


def test_a_metadata_token_a_header_cannot_carry_is_refused() -> None:
    keys = json.dumps(credential())
    answers = {"PUT": "tok☃en", "GET": keys}
    metadata = MetadataKeys(
        "http://127.0.0.1:9",
        transport=httpx.MockTransport(lambda r: httpx.Response(200, text=answers[r.method])),
    )
    with pytest.raises(AccountError, match="answered a token that cannot be sent back in a header") as caught:
        metadata.fetch()
    assert "☃" not in str(caught.value)


# -- bounded messages ----------------------------------------------------------------------------------------


def test_ten_thousand_projects_none_matching_are_named_a_few_and_counted() -> None:
    listed = {"projects": [{"id": f"{i:032x}", "name": f"cn-north-4_p{i}"} for i in range(10_000)]}
    iam = iam_answering(lambda _r: httpx.Response(200, json=listed, headers={"X-IAM-Trace-Id": "trace-1"}))
    with pytest.raises(AccountError) as caught:
        projects.find_project(iam, httpx.Auth(), "cn-north-4", identity="many", region="cn-north-4")
    text = str(caught.value)
    assert "no region cn-north-4's project named 'cn-north-4'" in text
    counted = re.search(
        r"the projects it listed: (cn-north-4_p\d+, )+and (\d+) more \[request id trace-1\]", text
    )
    assert counted and text.count("cn-north-4_p") + int(counted[2]) == 10_000
    assert len(text) < 1000 and projects.FIX in text


# -- keys ----------------------------------------------------------------------------------------------------


class Source:
    """A key source answering what ``hand_out`` makes of the clock, counting fetches."""

    name = "the test source at https://keys.example.com"

    def __init__(self, clock: list[float], hand_out: Callable[[float], TemporaryKeys]) -> None:
        self.clock, self.hand_out, self.fetched = clock, hand_out, 0

    def fetch(self) -> TemporaryKeys:
        self.fetched += 1
        return self.hand_out(self.clock[0])

    def secrets(self) -> tuple[str, ...]:
        return ()


@pytest.mark.parametrize("left", [-3600.0, 0.0, 0.5])
def test_keys_handed_out_expired_are_asked_for_once_more_then_refused(left: float) -> None:
    clock = [1000.0]
    source = Source(clock, lambda now: TemporaryKeys("AK", "sk", "st", now + left))
    keys = RenewingKeys(source, clock=lambda: clock[0])
    with pytest.raises(AccountError) as caught:
        keys.current()
    text = str(caught.value)
    assert source.name in text and "twice in a row" in text and "clock" in text
    assert source.fetched == 2
    for _ in range(12):  # the calls after it get the same answer, not a fetch each
        with pytest.raises(AccountError):
            keys.current()
    assert source.fetched == 2
    clock[0] += 31.0  # and ask again a while later
    with pytest.raises(AccountError):
        keys.current()
    assert source.fetched == 4


def test_keys_expired_once_then_good_are_used() -> None:
    clock = [1000.0]
    lifetimes = iter([-5.0, 900.0])
    source = Source(clock, lambda now: TemporaryKeys("AK", "sk", "st", now + next(lifetimes)))
    keys = RenewingKeys(source, clock=lambda: clock[0])
    assert keys.current().access == "AK" and source.fetched == 2
    for _ in range(13):
        keys.current()
    assert source.fetched == 2


def test_an_agency_handing_out_expired_keys_is_asked_twice_then_named(server: ScriptedServer) -> None:
    """Before: 14 assume_role calls for 13 ModelArts calls, each signed with keys already expired."""
    expired = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    assumed: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        assumed.append(request.url.path)
        return httpx.Response(201, json=credential(expires_at=expired))

    server.handler = lambda _r: json_reply({"metadata": {"id": "job-1"}, "status": {"phase": "Running"}})
    settings = Settings(project_id="p1", endpoint=server.url, iam_endpoint="https://iam.r.example.com",
                        access_key="AKHOSTILE", secret_key=SECRET, assume_role=AGENCY)  # fmt: skip
    with (
        iam_through(httpx.MockTransport(answer)),
        pytest.raises(AccountError) as caught,
        open_api(settings) as client,
    ):
        for _ in range(13):
            client.get_job("job-1")
    text = str(caught.value)
    assert "the agency 'modelarts_agency' of account 'emulator_partner'" in text
    assert "had already expired, twice in a row" in text and "clock" in text
    assert len(assumed) == 2 and server.requests == []


@pytest.mark.parametrize(
    "failure",
    [
        UnicodeEncodeError("ascii", "tok☃en", 3, 4, "ordinal not in range(128)"),
        RecursionError("maximum recursion depth exceeded"),
        httpx.ConnectError("[Errno 111] Connection refused tok☃en"),
        KeyError("tok☃en"),
    ],
)
def test_whatever_a_source_raises_is_an_account_error_naming_it(failure: Exception) -> None:
    def fail(_now: float) -> TemporaryKeys:
        raise failure

    keys = RenewingKeys(Source([0.0], fail), clock=lambda: 0.0)
    with pytest.raises(AccountError) as caught:
        keys.current()
    text = str(caught.value)
    assert "fetching temporary keys from the test source at https://keys.example.com failed" in text
    assert type(failure).__name__ in text and "☃" not in text


@pytest.mark.parametrize(("field", "value"), [("securitytoken", "tok☃en"), ("access", "AK\r\nX-Evil: 1")])
def test_keys_a_header_cannot_carry_are_refused_naming_the_source(field: str, value: str) -> None:
    with pytest.raises(AccountError) as caught:
        keys_from_answer(credential(**{field: value}), "IAM (assuming the agency 'a')")
    text = str(caught.value)
    assert "IAM (assuming the agency 'a') answered a credential whose" in text and field in text
    assert "cannot be sent in a request header" in text and value not in text


# -- the project id IAM answers ------------------------------------------------------------------------------


@pytest.mark.parametrize("answered", ["..", "", "abc\r\nX-Evil: 1", "a/b", "x" * 65])
def test_a_project_id_from_iam_that_cannot_be_sent_is_refused_at_once(answered: str) -> None:
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        if request.url.path == "/v3/projects":
            return httpx.Response(200, json={"projects": [{"id": answered, "name": "r"}]})
        return httpx.Response(500, json={"error_code": "Test.0000", "error_msg": "nothing else is asked"})

    settings = Settings(region="r", endpoint="http://127.0.0.1:9", iam_endpoint="https://iam.r.example.com",
                        access_key="AKHOSTILE", secret_key=SECRET)  # fmt: skip
    with iam_through(httpx.MockTransport(answer)), pytest.raises(AccountError) as caught:
        open_api(settings, sleep=lambda _s: None)
    text = str(caught.value)
    assert "looking up the region r's project 'r' in IAM failed" in text
    assert "answered a project id that cannot be used" in text
    assert "X-Evil" not in text and SECRET not in text
    assert asked == ["/v3/projects"]  # nothing retried, and nothing sent to ModelArts


def test_a_project_id_from_iam_that_is_sendable_is_used() -> None:
    iam = iam_answering(
        lambda _r: httpx.Response(200, json={"projects": [{"id": "0123abcd_-", "name": "r"}]})
    )
    assert projects.find_project(iam, AkSkAuth("AK", SECRET), "r", identity="fine") == "0123abcd_-"
