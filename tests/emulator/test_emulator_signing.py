"""The emulator's own SDK-HMAC-SHA256 verification against the official Huawei Cloud signer.

Requests the official signer (huaweicloudsdkcore) signs are accepted; the same requests changed in any signed
part are refused; and the signer the tests use to talk to the emulator produces the official signatures.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modelarts_emulator import signing
from modelarts_emulator.testing import EmulatorAuth

from ..official_sdk import sdk_module

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.auth.credentials import BasicCredentials  # noqa: E402
from huaweicloudsdkcore.sdk_request import SdkRequest  # noqa: E402
from huaweicloudsdkcore.signer.signer import Signer  # noqa: E402

AK = "EMULATORTESTAK00001"
SK = "sk/with+odd=characters~0123456789"
PROJECT = "0123456789abcdef0123456789abcdef"


def official(
    method: str, path: str, query: list[tuple[str, str]], body: bytes, headers: dict[str, str] | None = None
) -> SdkRequest:
    """A request as the official SDK signs it (it adds Host, X-Sdk-Date and X-Project-Id)."""
    request = SdkRequest(
        method=method,
        schema="https",
        host="modelarts.example.com",
        resource_path=path,
        query_params=list(query),
        header_params={"Content-Type": "application/json", **(headers or {})},
        body=body,
    )
    signed: SdkRequest = BasicCredentials(AK, SK, PROJECT).sign_request(request)
    return signed


def wire(request: SdkRequest) -> dict[str, Any]:
    """What the emulator sees of a signed request: the path and query as sent, lower-case headers."""
    return {
        "method": request.method,
        "raw_path": quote(request.resource_path, safe="/%~!$&'()*+,;=:@"),
        "raw_query": request.uri.partition("?")[2],
        "headers": {name.lower(): str(value) for name, value in request.header_params.items()},
        "body": request.body or b"",
    }


def verify(parts: dict[str, Any], *, now: datetime | None = None, secret_key: str = SK) -> str | None:
    return signing.verify(
        access_key=AK, secret_key=secret_key, now=now or datetime.now(timezone.utc), **parts
    )


segments = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=10
).filter(lambda s: s not in (".", ".."))
query_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=8)


@settings(max_examples=150, deadline=None)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
    path=st.lists(segments, min_size=1, max_size=4),
    query=st.lists(st.tuples(query_text.filter(bool), query_text), max_size=4),
    body=st.binary(max_size=64),
)
def test_what_the_official_signer_signs_is_accepted(
    method: str, path: list[str], query: list[tuple[str, str]], body: bytes
) -> None:
    resource_path = "/v2/" + "/".join(quote(segment, safe="") for segment in path)
    assert verify(wire(official(method, resource_path, query, body))) is None


def test_the_pages_request_shapes_are_accepted() -> None:
    for method, path, query, body in [
        ("POST", f"/v2/{PROJECT}/training-jobs", [], b'{"kind": "job"}'),
        ("GET", f"/v2/{PROJECT}/training-jobs/3f5d6706-7b67", [], b""),
        ("GET", f"/v2/{PROJECT}/training-job-names", [("job_name", "a b~c+d"), ("workspace_id", "0")], b""),
        ("GET", f"/v2/{PROJECT}/training-jobs/x/events", [("limit", "10"), ("level", "Error")], b""),
    ]:
        assert verify(wire(official(method, path, query, body))) is None


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda p: p.update(method="DELETE"), "signature"),
        (lambda p: p.update(raw_path=p["raw_path"] + "/x"), "signature"),
        (lambda p: p.update(raw_query="limit=11"), "signature"),
        (lambda p: p.update(body=p["body"] + b" "), "signature"),
        (lambda p: p["headers"].update({"x-project-id": "f" * 32}), "signature"),
        (lambda p: p["headers"].update({"host": "elsewhere.example.com"}), "signature"),
        (lambda p: p["headers"].update({"x-sdk-date": "a second later"}), "signature"),
        (lambda p: p["headers"].pop("authorization"), "missing"),
        (lambda p: p["headers"].update(authorization="Basic abc"), "not a valid"),
        (
            lambda p: p["headers"].update(authorization=p["headers"]["authorization"].replace(AK, "OTHER")),
            "access",
        ),
    ],
)
def test_a_changed_request_is_refused(change: Any, reason: str) -> None:
    parts = wire(official("POST", f"/v2/{PROJECT}/training-job-searches", [("limit", "10")], b'{"limit": 1}'))
    assert verify(parts) is None
    signed_at = datetime.strptime(parts["headers"]["x-sdk-date"], signing.DATE_FORMAT)
    change(parts)
    if parts["headers"].get("x-sdk-date") == "a second later":
        # A new date within the window is still refused: the date is part of what was signed.
        parts["headers"]["x-sdk-date"] = (signed_at + timedelta(seconds=1)).strftime(signing.DATE_FORMAT)
    problem = verify(parts)
    assert problem is not None and reason in problem
    assert SK not in problem


def test_wrong_secret_and_stale_or_unsigned_date_are_refused() -> None:
    parts = wire(official("GET", f"/v2/{PROJECT}/training-jobs/x", [], b""))
    assert "signature" in (verify(parts, secret_key="not-the-secret") or "")
    signed_at = datetime.strptime(parts["headers"]["x-sdk-date"], signing.DATE_FORMAT).replace(
        tzinfo=timezone.utc
    )
    assert verify(parts, now=signed_at + timedelta(minutes=14)) is None
    assert "15 minutes" in (verify(parts, now=signed_at + timedelta(minutes=16)) or "")
    assert "15 minutes" in (verify(parts, now=signed_at - timedelta(minutes=16)) or "")
    unsigned_date = dict(parts, headers={**parts["headers"]})
    auth = unsigned_date["headers"]["authorization"]
    unsigned_date["headers"]["authorization"] = auth.replace(";x-sdk-date", "")
    assert auth != unsigned_date["headers"]["authorization"]
    assert "must be a signed header" in (verify(unsigned_date) or "")


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("GET", f"https://modelarts.example.com/v2/{PROJECT}/training-jobs/j%C3%BCb~1", b""),
        ("POST", f"https://modelarts.example.com/v2/{PROJECT}/training-job-searches?b=2&a=%20x&a=1", b"{}"),
    ],
)
def test_the_test_signer_matches_the_official_one(method: str, url: str, body: bytes) -> None:
    date = "20240102T030405Z"
    ours = httpx.Request(
        method, url, content=body, headers={"Content-Type": "application/json", "X-Sdk-Date": date}
    )
    signed = next(EmulatorAuth(AK, SK).sync_auth_flow(ours))
    parsed = httpx.URL(url)
    reference = SdkRequest(
        method=method,
        schema="https",
        host=parsed.host,
        resource_path=parsed.raw_path.decode().partition("?")[0],
        query_params=signing.query_pairs(parsed.query.decode()),
        header_params={"Content-Type": "application/json", "X-Sdk-Date": date, "Host": parsed.host},
        body=body,
    )
    Signer(BasicCredentials(AK, SK)).sign(reference)
    assert signed.headers["Authorization"] == reference.header_params["Authorization"]
