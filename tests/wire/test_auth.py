"""AK/SK signing checked against the official Huawei Cloud signer, plus the auth classes' own promises."""

from __future__ import annotations

import copy
import json
import pickle
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_modelarts.wire.auth import (
    DATE_FORMAT,
    DATE_HEADER,
    AkSkAuth,
    AuthorizationParts,
    TokenAuth,
    authorization_value,
    canonical_uri,
    parse_authorization,
    query_pairs,
)

from ..official_sdk import sdk_module

sdk_module("huaweicloudsdkcore")
from huaweicloudsdkcore.auth.credentials import BasicCredentials  # noqa: E402
from huaweicloudsdkcore.sdk_request import SdkRequest  # noqa: E402
from huaweicloudsdkcore.signer.signer import Signer  # noqa: E402

AK = "HPUAEXAMPLEACCESSKEY"
SK = "sEcReT/Example+Secret=Key0123456789abcdefgh"
TOKEN = "gQpzb3ZlcmVpZ25Ub2tlbi1leGFtcGxlLXRva2Vu" * 3


def signed_with(auth: httpx.Auth, request: httpx.Request) -> httpx.Request:
    flow = auth.sync_auth_flow(request)
    out = next(flow)
    return out


def official_sign(
    *,
    method: str,
    host: str,
    resource_path: str,
    query: list[tuple[str, str]],
    headers: dict[str, str],
    body: bytes,
    project_id: str | None,
    security_token: str | None,
) -> SdkRequest:
    credentials = BasicCredentials(AK, SK, project_id)
    if security_token:
        credentials = credentials.with_security_token(security_token)
    request = SdkRequest(
        method=method,
        schema="https",
        host=host,
        resource_path=resource_path,
        query_params=list(query),
        header_params=dict(headers),
        body=body,
    )
    return credentials.sign_request(request)


# ---------------------------------------------------------------- generated requests

# "." and ".." are dot-segments: httpx removes them from the wire path (as any URL library does), so the two
# sides would not be signing the same request. The client refuses such ids instead.
segment_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=12
).filter(lambda s: s not in (".", ".."))
# How a client might escape a segment on the wire: fully, or leaving RFC 3986 sub-delims raw.
escapes = st.sampled_from(["", "!$&'()*+,;=:@", "~-._"])
query_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=10)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
token_text = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_", min_size=8
)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE"]))
    safe = draw(escapes)
    segments = draw(st.lists(segment_text, min_size=1, max_size=4))
    path = "/" + "/".join(quote(s, safe=safe) for s in segments)
    if draw(st.booleans()):
        path += "/"
    keys = draw(st.lists(query_text, max_size=3))
    query = [(k, v) for k in keys for v in draw(st.lists(query_text, min_size=1, max_size=2))]
    body_kind = draw(st.sampled_from(["none", "empty", "json"]))
    body = b""
    if body_kind == "json":
        body = json.dumps(draw(json_values), ensure_ascii=False).encode("utf-8")
    content_type = draw(
        st.sampled_from([None, "application/json;charset=UTF-8", "application/json", "text/plain"])
    )
    if body_kind == "none":
        content_type = None
    moment = draw(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)))
    return {
        "method": method,
        "host": draw(st.sampled_from(["modelarts.cn-north-4.myhuaweicloud.com", "127.0.0.1:8443"])),
        "path": path,
        "query": query,
        "body": body,
        "content_type": content_type,
        "sdk_date": moment.strftime(DATE_FORMAT),
        "project_id": draw(st.none() | st.sampled_from(["0123456789abcdef0123456789abcdef", "p-1"])),
        "security_token": draw(st.none() | token_text),
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_authorization_matches_the_official_signer(req: dict[str, Any]) -> None:
    headers = {DATE_HEADER: req["sdk_date"]}
    if req["content_type"]:
        headers["Content-Type"] = req["content_type"]
    official = official_sign(
        method=req["method"],
        host=req["host"],
        resource_path=req["path"],
        query=req["query"],
        headers=headers,
        body=req["body"],
        project_id=req["project_id"],
        security_token=req["security_token"],
    )
    # The SDK re-encodes the query into its final uri; send exactly that.
    ours = httpx.Request(
        req["method"], f"https://{req['host']}{official.uri}", headers=headers, content=req["body"]
    )
    auth = AkSkAuth(AK, SK, security_token=req["security_token"], project_id=req["project_id"])
    signed = signed_with(auth, ours)
    assert signed.headers["Authorization"] == official.header_params["Authorization"]
    # Both sides put the same extra headers on the wire.
    for name in ("X-Project-Id", "X-Security-Token", "X-Sdk-Content-Sha256"):
        assert signed.headers.get(name) == official.header_params.get(name)


def test_a_known_request_matches_the_official_signer() -> None:
    body = json.dumps({"metadata": {"name": "训练-job ü"}}, ensure_ascii=False).encode("utf-8")
    headers = {DATE_HEADER: "20240102T030405Z", "Content-Type": "application/json;charset=UTF-8"}
    official = official_sign(
        method="POST",
        host="modelarts.cn-north-4.myhuaweicloud.com",
        resource_path="/v2/proj/training-job-searches",
        query=[("limit", "1"), ("a b", "ü"), ("limit", ""), ("empty", "")],
        headers=headers,
        body=body,
        project_id="proj",
        security_token=TOKEN,
    )
    ours = httpx.Request(
        "POST", f"https://modelarts.cn-north-4.myhuaweicloud.com{official.uri}", headers=headers, content=body
    )
    signed = signed_with(AkSkAuth(AK, SK, security_token=TOKEN, project_id="proj"), ours)
    assert signed.headers["Authorization"] == official.header_params["Authorization"]
    parts = parse_authorization(signed.headers["Authorization"])
    assert parts is not None
    assert parts.signed_headers == ("content-type", "host", "x-project-id", "x-sdk-date", "x-security-token")


def test_canonical_pieces_agree_with_the_official_signer() -> None:
    request = SdkRequest(
        method="GET",
        resource_path="/v2/a b/%E8%AE%AD/x~y",
        query_params=[("b", "2"), ("a", "sp ace"), ("a", "")],
        header_params={},
    )
    assert canonical_uri("/v2/a b/%E8%AE%AD/x~y") == Signer(BasicCredentials(AK, SK))._process_canonical_uri(
        request
    )
    assert query_pairs("a=1&&a=&b") == [("a", "1"), ("a", ""), ("b", "")]


# ---------------------------------------------------------------- unit behaviour


def test_a_given_sdk_date_is_kept() -> None:
    request = httpx.Request("GET", "https://example.com/v2/p", headers={DATE_HEADER: "20200101T000000Z"})
    signed = signed_with(AkSkAuth(AK, SK), request)
    assert signed.headers[DATE_HEADER] == "20200101T000000Z"


def test_a_fresh_timestamp_when_none_is_given() -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    signed = signed_with(AkSkAuth(AK, SK), httpx.Request("GET", "https://example.com/v2/p"))
    after = datetime.now(timezone.utc)
    stamped = datetime.strptime(signed.headers[DATE_HEADER], DATE_FORMAT).replace(tzinfo=timezone.utc)
    assert before - timedelta(seconds=1) <= stamped <= after


@pytest.mark.parametrize("method", ["GET", "POST", "DELETE"])
def test_host_and_date_are_always_signed(method: str) -> None:
    signed = signed_with(AkSkAuth(AK, SK), httpx.Request(method, "https://example.com:8443/x"))
    parts = parse_authorization(signed.headers["Authorization"])
    assert parts is not None
    assert parts.access_key == AK
    assert {"host", "x-sdk-date"} <= set(parts.signed_headers)
    assert list(parts.signed_headers) == sorted(parts.signed_headers)


def test_security_token_and_project_are_sent_and_signed() -> None:
    signed = signed_with(
        AkSkAuth(AK, SK, security_token=TOKEN, project_id="p1"), httpx.Request("GET", "https://e.com/")
    )
    assert signed.headers["X-Security-Token"] == TOKEN
    assert signed.headers["X-Project-Id"] == "p1"
    parts = parse_authorization(signed.headers["Authorization"])
    assert parts is not None
    assert {"x-security-token", "x-project-id"} <= set(parts.signed_headers)


def test_token_auth_sets_the_token_header_only() -> None:
    signed = signed_with(TokenAuth(TOKEN, project_id="p1"), httpx.Request("GET", "https://e.com/"))
    assert signed.headers["X-Auth-Token"] == TOKEN
    assert signed.headers["X-Project-Id"] == "p1"
    assert "Authorization" not in signed.headers
    assert DATE_HEADER not in signed.headers


def test_parse_authorization_round_trip() -> None:
    value = authorization_value(AK, ["host", "x-sdk-date"], "ab" * 32)
    assert parse_authorization(value) == AuthorizationParts(AK, ("host", "x-sdk-date"), "ab" * 32)
    assert parse_authorization("Bearer abc") is None
    assert parse_authorization("SDK-HMAC-SHA256 Access=x, Signature=y") is None
    assert parse_authorization("") is None


def test_missing_keys_are_refused() -> None:
    with pytest.raises(ValueError):
        AkSkAuth("", SK)
    with pytest.raises(ValueError):
        AkSkAuth(AK, "")
    with pytest.raises(ValueError):
        TokenAuth("")


@pytest.mark.parametrize(
    "auth",
    [AkSkAuth(AK, SK, security_token=TOKEN, project_id="p1"), TokenAuth(TOKEN, project_id="p1")],
    ids=["aksk", "token"],
)
def test_reprs_hide_secrets_and_pickling_is_refused(auth: httpx.Auth) -> None:
    for text in (repr(auth), str(auth)):
        assert SK not in text
        assert TOKEN not in text
        assert AK not in text
    with pytest.raises(TypeError):
        pickle.dumps(auth)
    with pytest.raises(TypeError):
        copy.deepcopy(auth)
